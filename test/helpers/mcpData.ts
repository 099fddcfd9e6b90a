import { Client as ModernClient, StreamableHTTPClientTransport as ModernTransport } from "@modelcontextprotocol/client";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { handleMcpRequest } from "../../api/mcp/handler";
import type { Ctx } from "../../shared/context/ctx";
import type { Deps } from "../../shared/context/deps";
import {
  insertAssistantMessage,
  insertChatWithMessage,
  insertUserMessage,
} from "../../shared/conversations/repository";

/** A JSON-RPC answer as the MCP endpoint sends it. */
export interface RpcAnswer {
  // biome-ignore lint/suspicious/noExplicitAny: results are asserted field by field
  result?: any;
  error?: { code: number; message: string; data?: Record<string, unknown> };
}

/**
 * One JSON-RPC request through the MCP server in-process, for a caller built with `contextFor`
 * (an OAuth token's scopes can be given there before the OAuth routes exist).
 */
export async function mcpRpc(ctx: Ctx, method: string, params?: unknown): Promise<RpcAnswer> {
  const request = new Request("http://localhost/api/mcp", {
    method: "POST",
    headers: { accept: "application/json, text/event-stream", "content-type": "application/json" },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method, ...(params === undefined ? {} : { params }) }),
  });
  const response = await handleMcpRequest(request, ctx);
  if (response.status !== 200) throw new Error(`MCP answered ${response.status}: ${await response.text()}`);
  return (await response.json()) as RpcAnswer;
}

export interface SeededChat {
  chatId: string;
  question: string;
  /** A reply written with the profile in the instructions: withheld from shares. */
  personalReply: string;
  /** A reply that used no personal data: shown in shares. */
  plainReply: string;
}

/**
 * A health chat of two turns stored as the chat worker stores them: the first reply marked as
 * written with the profile in its instructions, the second without personal data.
 */
export async function seedChat(deps: Deps, accountId: string, title: string): Promise<SeededChat> {
  const chatId = Bun.randomUUIDv7();
  const tag = chatId.slice(-8);
  const question = `What helps with a cough? (${tag})`;
  const personalReply = `Given your asthma, try this first (${tag}).`;
  const plainReply = `Honey and rest help most coughs (${tag}).`;
  const first = `msg_${Bun.randomUUIDv7()}`;
  await insertChatWithMessage(
    deps.sql,
    { id: chatId, accountId, surface: "health", title },
    { id: first, role: "user", parts: [{ type: "text", text: question }] },
  );
  await insertAssistantMessage(deps.sql, chatId, first, {
    id: `${first}-reply`,
    role: "assistant",
    parts: [{ type: "text", text: personalReply }],
    metadata: { profileInPrompt: true },
  });
  const second = `msg_${Bun.randomUUIDv7()}`;
  await insertUserMessage(deps.sql, chatId, { id: second, role: "user", parts: [{ type: "text", text: "And?" }] });
  await insertAssistantMessage(deps.sql, chatId, second, {
    id: `${second}-reply`,
    role: "assistant",
    parts: [{ type: "text", text: plainReply }],
    metadata: { profileInPrompt: false },
  });
  return { chatId, question, personalReply, plainReply };
}

/** The two protocol eras the server speaks, each with the official SDK client of its time. */
export const ERAS = ["2025-11-25", "2026-07-28"] as const;
export type Era = (typeof ERAS)[number];

/**
 * An MCP SDK client connected to `url` over Streamable HTTP, sending `headers` (a key:
 * `{ authorization: "Bearer …" }`). 2025-11-25: the v1 SDK's client (`initialize`); 2026-07-28: the
 * v2 client with version negotiation `auto`, which probes with `server/discover`. The v2 client is
 * typed as v1's: the methods the tests call have the same shape in both.
 */
export async function connectMcp(
  url: URL,
  headers: Record<string, string>,
  name = "test-agent",
  era: Era = "2025-11-25",
): Promise<Client> {
  if (era === "2026-07-28") {
    const modern = new ModernClient({ name, version: "1.0.0" }, { versionNegotiation: { mode: "auto" } });
    await modern.connect(new ModernTransport(url, { requestInit: { headers } }));
    if (modern.getNegotiatedProtocolVersion() !== era) {
      throw new Error(`negotiated ${modern.getNegotiatedProtocolVersion()}, not ${era}`);
    }
    return modern as unknown as Client;
  }
  const client = new Client({ name, version: "1.0.0" });
  await client.connect(new StreamableHTTPClientTransport(url, { requestInit: { headers } }));
  return client;
}

/** The headers of an API-key caller. */
export const bearer = (key: string) => ({ authorization: `Bearer ${key}` });
