import { SCOPES, type Scope } from "../../shared/auth/scopes";

/** The consent screen: server-rendered, no script, one form. */
export interface ConsentView {
  uid: string;
  clientName: string;
  clientId: string;
  /** Where the browser goes back to (its host is what the user should recognise). */
  redirectHost: string;
  clientUri?: string;
  email: string;
  plan: string;
  scopes: Scope[];
  csrfToken: string;
  /** A problem with the last submission, shown above the form. */
  notice?: string;
}

export function escapeHtml(value: string): string {
  return value.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

function document(title: string, body: string, stylesheet?: string): string {
  return `<!doctype html>
<html lang="en">
  <head>
    <meta charset="utf-8">
    <meta name="viewport" content="width=device-width, initial-scale=1">
    <title>${escapeHtml(title)} · Papers &amp; Health</title>
    ${stylesheet ? `<link rel="stylesheet" href="${stylesheet}">` : ""}
  </head>
  <body>
    <header class="site"><span class="brand">Papers &amp; Health</span></header>
    <main id="main">
      <h1>${escapeHtml(title)}</h1>
      ${body}
    </main>
  </body>
</html>
`;
}

const HEALTH_NOTE =
  "Health scopes work only on the Go plan or above, and health data only after you have given consent in your health profile.";

export function consentPage(view: ConsentView, stylesheet?: string): string {
  const scopes = view.scopes
    .map(
      (scope) => `<li><label><input type="checkbox" name="scope" value="${scope}" checked>
        <code>${scope}</code>: ${escapeHtml(SCOPES[scope])}</label></li>`,
    )
    .join("\n");
  const health = view.scopes.some((scope) => scope.startsWith("health:")) ? `<p class="muted">${HEALTH_NOTE}</p>` : "";
  const site = view.clientUri
    ? ` (<a href="${escapeHtml(view.clientUri)}" rel="noreferrer">${escapeHtml(view.clientUri)}</a>)`
    : "";
  return document(
    `Allow ${view.clientName} to use your account?`,
    `<p><strong>${escapeHtml(view.clientName)}</strong>${site} asks to connect to the MCP server as
      <strong>${escapeHtml(view.email)}</strong> (${escapeHtml(view.plan)} plan). After you decide you go back to
      <strong>${escapeHtml(view.redirectHost)}</strong>.</p>
    <p class="muted">Client id: <code>${escapeHtml(view.clientId)}</code></p>
    ${view.notice ? `<p class="notice" role="alert">${escapeHtml(view.notice)}</p>` : ""}
    <form method="post" action="/oauth/interaction/${escapeHtml(view.uid)}">
      <input type="hidden" name="csrf" value="${escapeHtml(view.csrfToken)}">
      <fieldset><legend>It may</legend><ul>${scopes}</ul></fieldset>
      ${health}
      <p>Its requests count against your hourly limit. You can disconnect it any time on the dashboard.</p>
      <button type="submit" name="decision" value="allow">Allow</button>
      <button type="submit" name="decision" value="deny" class="secondary">Deny</button>
    </form>`,
    stylesheet,
  );
}

/** An interaction that cannot go on (expired, or opened in another browser). */
export function interactionErrorPage(message: string, stylesheet?: string): string {
  return document(
    "This authorization cannot continue",
    `<p>${escapeHtml(message)}</p><p>Go back to the application and connect again.</p>`,
    stylesheet,
  );
}
