import { Elysia, t } from "elysia";
import { isScope, type Scope } from "../../shared/auth/scopes";
import { csrfMatches, type WebSession } from "../../shared/auth/webSessions";
import type { Deps } from "../../shared/context/deps";
import { Text } from "../../shared/core/text";
import { HTML, response } from "../openapi/media";
import { cookieValue } from "../plugins/session";
import { webAssets } from "../web/assets";
import { signInLocation } from "../web/client/destination";
import { websiteSession } from "./browserLogin";
import { consentPage, interactionErrorPage } from "./consentPage";
import type { InteractionType } from "./provider";
import { INTERACTION_PATH, type LazyOAuthServer, type OAuthServer } from "./provider";

/**
 * The sign-in and consent step of an authorization (oidc-provider's "interaction"). Sign-in is the
 * website's own: without a session the browser goes to the sign-in page, which comes back here.
 * The decision is posted with the session's CSRF token; the grant it makes names the scopes the
 * user left ticked, for the MCP resource only.
 */
type Interaction = InteractionType;

const TAGS = ["OAuth"];
const GONE = "This sign-in link has expired or was already used.";
const OTHER_BROWSER = "This authorization was started in another browser or tab.";

function page(html: string, status: number, formTarget?: string): Response {
  const formAction = ["'self'", formTarget].filter(Boolean).join(" ");
  return new Response(html, {
    status,
    headers: {
      "content-type": "text/html; charset=utf-8",
      "cache-control": "no-store",
      // The decision's redirects end at the client's redirect_uri; browsers hold form-action to them.
      "content-security-policy": `default-src 'none'; style-src 'self'; form-action ${formAction}; frame-ancestors 'none'; base-uri 'none'`,
    },
  });
}

async function errorPage(message: string, status: number): Promise<Response> {
  return page(interactionErrorPage(message, (await webAssets()).style), status);
}

/** The interaction this browser started: its uid is in the URL and in the provider's cookie. */
async function interactionFor(server: OAuthServer, request: Request, uid: string): Promise<Interaction | Response> {
  const interaction = await server.provider.Interaction.find(uid);
  if (!interaction) return errorPage(GONE, 404);
  if (cookieValue(request.headers.get("cookie"), "_interaction") !== uid) return errorPage(OTHER_BROWSER, 403);
  return interaction;
}

/** The scopes of ours the client asked for, in the order it asked. */
function requestedScopes(interaction: Interaction): Scope[] {
  const asked = String(interaction.params.scope ?? "").split(" ");
  return [...new Set(asked.filter(isScope))];
}

function redirectOrigin(interaction: Interaction): string | undefined {
  const uri = URL.parse(String(interaction.params.redirect_uri ?? ""));
  if (!uri) return undefined;
  return uri.protocol === "http:" || uri.protocol === "https:" ? uri.origin : uri.protocol;
}

async function showConsent(
  server: OAuthServer,
  interaction: Interaction,
  session: WebSession,
  uid: string,
  notice?: string,
): Promise<Response> {
  const client = await server.provider.Client.find(String(interaction.params.client_id));
  if (!client) return errorPage(GONE, 404);
  const redirect = URL.parse(String(interaction.params.redirect_uri ?? ""));
  const html = consentPage(
    {
      uid,
      clientName: client.clientName ?? client.clientId,
      clientId: client.clientId,
      clientUri: client.clientUri?.startsWith("https://") ? client.clientUri : undefined,
      redirectHost: redirect?.host || redirect?.protocol || "the application",
      email: session.email,
      plan: session.plan,
      scopes: requestedScopes(interaction),
      csrfToken: session.csrfToken,
      notice,
    },
    (await webAssets()).style,
  );
  return page(html, 200, redirectOrigin(interaction));
}

/** Records the decision on the interaction and sends the browser back to the provider. */
async function decide(
  server: OAuthServer,
  interaction: Interaction,
  session: WebSession,
  allowed: Scope[] | undefined,
): Promise<Response> {
  let result: Record<string, unknown>;
  if (!allowed || allowed.length === 0) {
    result = {
      error: "access_denied",
      error_description: allowed ? "No scope was allowed." : "The user denied access.",
    };
  } else {
    const clientId = String(interaction.params.client_id);
    const existing = interaction.grantId ? await server.provider.Grant.find(interaction.grantId) : undefined;
    const grant =
      existing && existing.accountId === session.accountId
        ? existing
        : new server.provider.Grant({ accountId: session.accountId, clientId });
    const oidc = String(interaction.params.scope ?? "")
      .split(" ")
      .filter((scope) => scope === "openid" || scope === "offline_access");
    if (oidc.length > 0) grant.addOIDCScope(oidc.join(" "));
    grant.addResourceScope(server.resource, allowed.join(" "));
    // Scopes the user unticked are recorded as refused, so the provider does not ask again for them.
    const refused = requestedScopes(interaction).filter((scope) => !allowed.includes(scope));
    if (refused.length > 0) grant.rejectResourceScope(server.resource, refused.join(" "));
    result = { login: { accountId: session.accountId }, consent: { grantId: await grant.save() } };
  }
  interaction.result = result;
  await interaction.save(Math.max(1, interaction.exp - Math.floor(Date.now() / 1000)));
  return new Response(null, { status: 303, headers: { location: interaction.returnTo, "cache-control": "no-store" } });
}

/** Typed as a bare plugin, like oauthRoutes. */
export function oauthInteractionRoutes(deps: Deps, oauth: LazyOAuthServer): Elysia {
  return interactionRoutesTyped(deps, oauth) as unknown as Elysia;
}

function interactionRoutesTyped(deps: Deps, oauth: LazyOAuthServer) {
  return new Elysia({ name: "routes/oauth/interaction" })
    .get(
      `${INTERACTION_PATH}/:uid`,
      async ({ request, params }) => {
        const server = await oauth.get();
        const interaction = await interactionFor(server, request, params.uid);
        if (interaction instanceof Response) return interaction;
        const session = await websiteSession(deps, request.headers.get("cookie"));
        if (!session) {
          const location = signInLocation(`${INTERACTION_PATH}/${params.uid}`, new URL(request.url).origin);
          return new Response(null, { status: 303, headers: { location, "cache-control": "no-store" } });
        }
        return showConsent(server, interaction, session, params.uid);
      },
      {
        params: t.Object({ uid: Text({ maxLength: 64 }) }),
        detail: {
          tags: TAGS,
          summary: "Sign-in and consent page of an authorization",
          description:
            "Names the client, where it returns to, and the scopes it asks for. Without a website session: 303 to the sign-in page, which returns here.",
          responses: {
            200: response("The consent page.", HTML),
            303: { description: "To the website's sign-in page." },
            403: response("Opened in another browser than the one that started the authorization.", HTML),
            404: response("Expired or already used.", HTML),
          },
        },
      },
    )
    .post(
      `${INTERACTION_PATH}/:uid`,
      async ({ request, params, body }) => {
        const server = await oauth.get();
        const interaction = await interactionFor(server, request, params.uid);
        if (interaction instanceof Response) return interaction;
        const session = await websiteSession(deps, request.headers.get("cookie"));
        if (!session) return errorPage("Sign in first; your website session has ended.", 401);
        if (!csrfMatches(session, body.csrf ?? null)) return errorPage("The form is out of date; reload it.", 403);
        const ticked = typeof body.scope === "string" ? [body.scope] : (body.scope ?? []);
        const asked = requestedScopes(interaction);
        const allowed = body.decision === "allow" ? asked.filter((scope) => ticked.includes(scope)) : undefined;
        // Allowing nothing is not a decision the client can use: ask again rather than deny.
        if (allowed?.length === 0) {
          return showConsent(server, interaction, session, params.uid, "Tick at least one scope to allow, or deny.");
        }
        return decide(server, interaction, session, allowed);
      },
      {
        params: t.Object({ uid: Text({ maxLength: 64 }) }),
        body: t.Object({
          csrf: t.Optional(Text({ maxLength: 128 })),
          decision: t.Union([t.Literal("allow"), t.Literal("deny")]),
          scope: t.Optional(t.Union([Text({ maxLength: 32 }), t.Array(Text({ maxLength: 32 }), { maxItems: 16 })])),
        }),
        detail: {
          tags: TAGS,
          summary: "The user's decision on the consent page",
          description:
            "A form post with the session's CSRF token. Allow grants the ticked scopes (with none ticked the page asks again); either way 303 back to the authorization, which ends at the client's redirect_uri.",
          responses: {
            200: response("Allow with no scope ticked: the consent page again, asking for one.", HTML),
            303: { description: "Back to the authorization endpoint." },
            401: response("No website session.", HTML),
            403: response("Opened in another browser, or the CSRF token does not match.", HTML),
            404: response("Expired or already used.", HTML),
          },
        },
      },
    );
}
