import type { TSchema } from "@sinclair/typebox";
import type { DocumentDecoration } from "elysia";
import { wireSchema } from "./wireSchema";

/**
 * Response bodies that are not one JSON schema, for a route's `detail.responses`: event streams,
 * files, pages. Declared where the route is, merged with its JSON response by the generator.
 */
type Json = Record<string, unknown>;
/** A response as a route's `detail.responses` takes it. */
export type ResponseDoc = NonNullable<DocumentDecoration["responses"]>[string];

const text = (description: string) => ({ schema: { type: "string", description } });

/** The AI SDK UI message stream as the chat routes send it. */
export const UI_MESSAGE_STREAM = {
  "text/event-stream": {
    schema: {
      type: "string",
      description:
        "Server-sent events. Each event has `id: <sequence number>` (send it back as Last-Event-ID to resume) and `data: <JSON chunk>`, the AI SDK UI message stream protocol: `{type: start | start-step | text-start | text-delta | text-end | tool-input-start | tool-input-delta | tool-input-available | tool-output-available | tool-output-error | finish-step | finish | error, …}`. The stream ends with `data: [DONE]`. Comment lines (`: …`) keep the connection alive.",
    },
    example:
      'id: 1\ndata: {"type":"start","messageId":"…"}\n\nid: 2\ndata: {"type":"text-delta","id":"t1","delta":"Hello"}\n\ndata: [DONE]\n\n',
  },
};

export const STREAM_HEADERS = {
  "x-vercel-ai-ui-message-stream": {
    description: "`v1`: the AI SDK's stream protocol version.",
    schema: { type: "string" },
  },
  "X-Chat-Id": { description: "The conversation's id (also for a new conversation).", schema: { type: "string" } },
};

/** A response whose body is one of several media types (`content` entries). */
export function response(description: string, content: Json, headers?: Json): ResponseDoc {
  return { description, content, ...(headers ? { headers } : {}) } as ResponseDoc;
}

/** A required request body of the given media types (for a route that parses its own). */
export function requestBody(content: Json): DocumentDecoration["requestBody"] {
  return { required: true, content } as DocumentDecoration["requestBody"];
}

export function json(schema: TSchema | Json): Json {
  return { "application/json": { schema: wireSchema(schema) } };
}

export const CSV = (description: string) => ({ "text/csv": text(description) });
export const HTML = { "text/html": text("An HTML page.") };
export const NO_CONTENT: ResponseDoc = { description: "No content." };
