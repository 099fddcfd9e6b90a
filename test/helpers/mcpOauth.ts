import { Client, StreamableHTTPClientTransport, UnauthorizedError } from "@modelcontextprotocol/client";
import { authorizeAt, CALLBACK } from "./oauth";
import type { WebUser } from "./website";

/**
 * The client side of OAuth as an MCP host keeps it, for the SDK clients of both eras (their
 * provider interfaces have the same shape): registration or tokens are kept in memory, and the
 * authorization URL is kept for the test (or its browser) to open. With `clientMetadataUrl` the
 * client is known by that client ID metadata document and never registers.
 */
export class TestOAuthClient {
  // biome-ignore lint/suspicious/noExplicitAny: token and client shapes differ by SDK version; tests read fields
  saved?: any;
  verifier = "";
  authorizationUrl?: URL;
  information?: { client_id: string };
  discovery?: unknown;
  constructor(
    readonly redirectUrl: string,
    readonly clientMetadataUrl?: string,
    readonly name = "Modern agent (test)",
  ) {}
  get clientMetadata() {
    return {
      client_name: this.name,
      redirect_uris: [this.redirectUrl],
      grant_types: ["authorization_code", "refresh_token"],
      response_types: ["code"],
      token_endpoint_auth_method: "none",
    };
  }
  clientInformation() {
    return this.information;
  }
  saveClientInformation(information: { client_id: string }) {
    this.information = information;
  }
  tokens() {
    return this.saved;
  }
  saveTokens(tokens: unknown) {
    this.saved = tokens;
  }
  redirectToAuthorization(url: URL) {
    this.authorizationUrl = url;
  }
  saveCodeVerifier(verifier: string) {
    this.verifier = verifier;
  }
  codeVerifier() {
    return this.verifier;
  }
  saveDiscoveryState(state: unknown) {
    this.discovery = state;
  }
  discoveryState() {
    return this.discovery as never;
  }
}

/** The v2 client negotiating the protocol era itself (`auto`), as 2026-07-28 agents do. */
export const modernClient = (name = "modern-agent") =>
  new Client({ name, version: "1.0.0" }, { versionNegotiation: { mode: "auto" } });

/**
 * The whole flow for `user`: the client is sent to authorize, the user allows every scope on the
 * consent page (over HTTP, with the website's session), the client redeems the code (checking its
 * `iss`), then connects with the token. Returns the connected client and what the flow showed.
 */
export async function connectThroughOAuth(
  site: string,
  user: Pick<WebUser, "cookie" | "csrfToken">,
  documentUrl: string,
): Promise<{ client: Client; provider: TestOAuthClient; callback: URL }> {
  const url = new URL(`${site}/api/mcp`);
  const provider = new TestOAuthClient(CALLBACK, documentUrl);
  const first = new StreamableHTTPClientTransport(url, { authProvider: provider });
  const refused = await modernClient()
    .connect(first)
    .then(() => undefined)
    .catch((error: unknown) => error);
  if (!(refused instanceof UnauthorizedError)) throw new Error(`expected a 401 first, got ${String(refused)}`);
  const callback = await authorizeAt(site, user, (provider.authorizationUrl as URL).href);
  await first.finishAuth(callback.searchParams);
  const client = modernClient();
  await client.connect(new StreamableHTTPClientTransport(url, { authProvider: provider }));
  return { client, provider, callback };
}
