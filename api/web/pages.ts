import { join } from "node:path";
import type { WebAssets } from "./assets";

/** The site's pages: server-rendered shells whose controls the client script wires up. */
export interface PageDefinition {
  path: string;
  /** `data-page` on <body>; picks the client module, and names the markup file in pages/. */
  id: "auth" | "dashboard" | "profile" | "logs" | "labs" | "chat";
  title: string;
  /** Needs a signed-in session (the client checks it; the server redirects when there is no cookie at all). */
  signedIn: boolean;
}

export const PAGES: PageDefinition[] = [
  { path: "/", id: "auth", title: "Sign in or create an account", signedIn: false },
  { path: "/dashboard", id: "dashboard", title: "Developer dashboard", signedIn: true },
  { path: "/health", id: "profile", title: "Health profile and consent", signedIn: true },
  { path: "/health/logs", id: "logs", title: "Health logs", signedIn: true },
  { path: "/health/labs", id: "labs", title: "Lab results", signedIn: true },
  { path: "/health/chat", id: "chat", title: "Health chat", signedIn: true },
];

const NAV: { path: string; label: string }[] = [
  { path: "/dashboard", label: "Dashboard" },
  { path: "/health", label: "Profile" },
  { path: "/health/logs", label: "Logs" },
  { path: "/health/labs", label: "Labs" },
  { path: "/health/chat", label: "Chat" },
];

const markup = new Map<string, Promise<string>>();

function bodyOf(page: PageDefinition): Promise<string> {
  let text = markup.get(page.id);
  if (!text) {
    text = Bun.file(join(import.meta.dir, "pages", `${page.id}.html`)).text();
    markup.set(page.id, text);
  }
  return text;
}

function navigation(current: PageDefinition): string {
  if (!current.signedIn) return "";
  const links = NAV.map(
    (item) =>
      `<li><a href="${item.path}"${item.path === current.path ? ' aria-current="page"' : ""}>${item.label}</a></li>`,
  ).join("");
  return `<nav aria-label="Main"><ul>${links}</ul></nav>
      <div class="account"><span id="account-email" class="muted"></span>
        <button type="button" id="sign-out" class="secondary">Sign out</button></div>`;
}

/** The whole HTML document of a page. */
export async function renderPage(page: PageDefinition, assets: WebAssets): Promise<string> {
  return `<!doctype html>
<html lang="en">
  <head>
    <meta charset="utf-8">
    <meta name="viewport" content="width=device-width, initial-scale=1">
    <title>${page.title} · Papers &amp; Health</title>
    <link rel="stylesheet" href="${assets.style}">
    <script type="module" src="${assets.script}"></script>
  </head>
  <body data-page="${page.id}">
    <a class="skip" href="#main">Skip to content</a>
    <header class="site">
      <a class="brand" href="${page.signedIn ? "/dashboard" : "/"}">Papers &amp; Health</a>
      ${navigation(page)}
    </header>
    <main id="main" tabindex="-1">
      <h1>${page.title}</h1>
      ${await bodyOf(page)}
    </main>
    <footer class="site"><p>Papers &amp; Health API · <a href="/docs">API reference</a></p></footer>
  </body>
</html>
`;
}
