import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Server } from "bun";
import { CALLBACK } from "./oauth";

/**
 * Where an OAuth client publishes its client ID metadata document: an https server on 127.0.0.1 with
 * a self-signed certificate made at test time (openssl), so no key is ever committed. The OAuth
 * server trusts it through OAUTH_FETCH_CA_FILE (`caFile`) and reaches loopback only with
 * OAUTH_FETCH_ALLOW_LOOPBACK; `oauthFetchEnv` gives both. Each path serves a document or a handler,
 * and requests are counted per path, so a test can see whether the server fetched again.
 */
export type DocumentRoute = Record<string, unknown> | ((request: Request) => Response | Promise<Response>);

export interface ClientMetadataServer {
  /** `https://127.0.0.1:<port>` */
  origin: string;
  /** The PEM file of the server's certificate (its own CA). */
  caFile: string;
  /** The URL of `path` on this server (a client_id, when a document is served there). */
  url(path: string): string;
  /** Serves `route` at `path` (a JSON document with Cache-Control `max-age`, or a handler). */
  serve(path: string, route: DocumentRoute, options?: { maxAgeSeconds?: number }): string;
  /** Serves the usual document for a public MCP client at `path`; returns its URL (the client_id). */
  serveClient(path: string, overrides?: Record<string, unknown>): string;
  /** Requests received for `path` so far. */
  hits(path: string): number;
  stop(): Promise<void>;
}

/** A client ID metadata document as an MCP client publishes it (public client, code + refresh). */
export function clientDocument(clientId: string, overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    client_id: clientId,
    client_name: "Metadata Document Assistant",
    client_uri: new URL(clientId).origin,
    redirect_uris: [CALLBACK],
    grant_types: ["authorization_code", "refresh_token"],
    response_types: ["code"],
    token_endpoint_auth_method: "none",
    ...overrides,
  };
}

/** A self-signed certificate for 127.0.0.1, ::1 and localhost, valid for two days. */
function selfSignedCertificate(dir: string): { cert: string; key: string; caFile: string } {
  const keyFile = join(dir, "key.pem");
  const caFile = join(dir, "cert.pem");
  const made = Bun.spawnSync(
    [
      "openssl",
      "req",
      "-x509",
      "-newkey",
      "ec",
      "-pkeyopt",
      "ec_paramgen_curve:P-256",
      "-nodes",
      "-days",
      "2",
      "-subj",
      "/CN=client-metadata-test",
      "-addext",
      "subjectAltName=IP:127.0.0.1,IP:::1,DNS:localhost",
      "-keyout",
      keyFile,
      "-out",
      caFile,
    ],
    { stderr: "pipe" },
  );
  if (made.exitCode !== 0) {
    throw new Error(`openssl could not make the test certificate (apt-get install openssl): ${made.stderr}`);
  }
  return { cert: readFileSync(caFile, "utf8"), key: readFileSync(keyFile, "utf8"), caFile };
}

export async function startClientMetadataServer(): Promise<ClientMetadataServer> {
  const dir = mkdtempSync(join(tmpdir(), "client-metadata-"));
  const { cert, key, caFile } = selfSignedCertificate(dir);
  const routes = new Map<string, DocumentRoute>();
  const maxAges = new Map<string, number>();
  const counts = new Map<string, number>();
  const server: Server<undefined> = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    tls: { cert, key },
    async fetch(request) {
      const path = new URL(request.url).pathname;
      counts.set(path, (counts.get(path) ?? 0) + 1);
      const route = routes.get(path);
      if (!route) return new Response("not found", { status: 404 });
      if (typeof route === "function") return route(request);
      return Response.json(route, { headers: { "cache-control": `max-age=${maxAges.get(path) ?? 3600}` } });
    },
  });
  const origin = `https://127.0.0.1:${server.port}`;
  const url = (path: string) => `${origin}${path}`;
  const serve: ClientMetadataServer["serve"] = (path, route, options = {}) => {
    routes.set(path, route);
    if (options.maxAgeSeconds !== undefined) maxAges.set(path, options.maxAgeSeconds);
    return url(path);
  };
  return {
    origin,
    caFile,
    url,
    serve,
    serveClient: (path, overrides = {}) => serve(path, clientDocument(url(path), overrides)),
    hits: (path) => counts.get(path) ?? 0,
    async stop() {
      await server.stop(true);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** The env settings under which the OAuth server fetches from `server` (and nothing else local). */
export function oauthFetchEnv(server: Pick<ClientMetadataServer, "caFile">, timeoutMs = 5000) {
  return { OAUTH_FETCH_CA_FILE: server.caFile, OAUTH_FETCH_ALLOW_LOOPBACK: true, OAUTH_FETCH_TIMEOUT_MS: timeoutMs };
}
