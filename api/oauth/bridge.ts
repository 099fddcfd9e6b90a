import { mkdtempSync, rmSync } from "node:fs";
import { createServer, type RequestListener, type Server } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";

/**
 * oidc-provider is a Koa application: it answers Node's (req, res), while this API answers fetch
 * Requests. It is served by a `node:http` server on a private Unix socket of this process, and
 * its paths are forwarded there. The hop is a local socket write; OAuth requests are rare.
 */
export interface NodeBridge {
  forward(request: Request, headers: Headers): Promise<Response>;
  close(): Promise<void>;
}

export async function bridgeToNode(listener: RequestListener): Promise<NodeBridge> {
  const dir = mkdtempSync(join(tmpdir(), "oauth-"));
  const socket = join(dir, "provider.sock");
  // Headers are filtered before they are forwarded; the limit only has to hold a large cookie jar.
  const server: Server = createServer({ maxHeaderSize: 64 * 1024 }, listener);
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(socket, () => resolve());
  });
  return {
    async forward(request, headers) {
      const url = new URL(request.url);
      const hasBody = request.method !== "GET" && request.method !== "HEAD";
      const answer = await fetch(`http://oauth.internal${url.pathname}${url.search}`, {
        unix: socket,
        method: request.method,
        headers,
        body: hasBody ? await request.arrayBuffer() : undefined,
        redirect: "manual",
        decompress: false,
      } as RequestInit);
      // The body is handed on as read; Bun would otherwise keep a stale length for a re-encoded one.
      const responseHeaders = new Headers(answer.headers);
      responseHeaders.delete("content-length");
      responseHeaders.delete("connection");
      responseHeaders.delete("keep-alive");
      return new Response(answer.body, { status: answer.status, headers: responseHeaders });
    },
    async close() {
      await new Promise<void>((resolve) => server.close(() => resolve()));
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
