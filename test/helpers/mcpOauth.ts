import {
  Client,
  type OAuthClientProvider,
  StreamableHTTPClientTransport,
  UnauthorizedError,
} from "@modelcontextprotocol/client";
import { authorizeAt, CALLBACK } from "./oauth";
import type { WebUser } from "./website";

type Stored = Awaited<ReturnType<OAuthClientProvider["tokens"]>>;

/**
 * The client side of OAuth as a 2026-07-28 agent keeps it, known by a client ID metadata document
 * (its client_id is the document's URL, so it never registers); the authorization URL is kept for
 * the test to "open".
 */
export class MetadataDocumentClient implements OAuthClientProvider {
  saved?: Stored;
  verifier = "";
  authorizationUrl?: URL;
  information?: { client_id: string };
  discovery?: unknown;
  constructor(readonly clientMetadataUrl: string) {}
  get redirectUrl() {
    return CALLBACK;
  }
  get clientMetadata() {
    return {
      client_name: "Modern agent (test)",
      redirect_uris: [CALLBACK],
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
  saveTokens(tokens: Stored) {
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
): Promise<{ client: Client; provider: MetadataDocumentClient; callback: URL }> {
  const url = new URL(`${site}/api/mcp`);
  const provider = new MetadataDocumentClient(documentUrl);
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
