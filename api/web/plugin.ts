import { Elysia } from "elysia";
import { AppError } from "../../shared/core/errors";
import { failures } from "../openapi/declare";
import { HTML, response } from "../openapi/media";
import { webAssets } from "./assets";
import { signInLocation } from "./client/destination";
import { PAGES, type PageDefinition, renderPage } from "./pages";

/**
 * Pages may load only this origin's script and styles. `connect-src` also allows https: because a
 * presigned upload URL can point at an S3-compatible bucket on another host.
 */
const PAGE_CSP = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "media-src 'self' blob:",
  "connect-src 'self' https:",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join("; ");

const IMMUTABLE = "public, max-age=31536000, immutable";

/** Whether the request carries a session cookie at all (whether it is valid is the API's business). */
function hasSessionCookie(request: Request): boolean {
  return /(?:^|;\s*)sid=[^;]/.test(request.headers.get("cookie") ?? "");
}

function pageRoute(page: PageDefinition) {
  return async ({
    request,
    set,
  }: {
    request: Request;
    set: { headers: Record<string, unknown>; status?: unknown };
  }) => {
    if (page.signedIn && !hasSessionCookie(request)) {
      set.status = 303;
      set.headers.location = signInLocation(page.path, new URL(request.url).origin);
      return "";
    }
    const assets = await webAssets();
    set.headers["content-type"] = "text/html; charset=utf-8";
    set.headers["content-security-policy"] = PAGE_CSP;
    return renderPage(page, assets);
  };
}

const ASSET_DOC = failures(
  {
    tags: ["Website pages"],
    summary: "A bundled script or stylesheet of the website (immutable, revalidated by ETag)",
    responses: {
      200: response("The asset.", {
        "text/javascript": { schema: { type: "string" } },
        "text/css": { schema: { type: "string" } },
      }),
      304: { description: "Not modified." },
    },
  },
  "NOT_FOUND",
);

function pageDoc(page: PageDefinition) {
  const redirect = { 303: { description: "No session cookie: to the sign-in page, which returns here." } };
  return {
    // Page paths mirror API paths (`/health/labs`), so their ids say they are pages.
    operationId: `page${page.id.charAt(0).toUpperCase()}${page.id.slice(1)}`,
    tags: ["Website pages"],
    summary: `Website page: ${page.title}`,
    responses: { 200: response("The page.", HTML), ...(page.signedIn ? redirect : {}) },
  };
}

/** The website: pages at `/`, `/dashboard`, `/health…`, and their bundled assets under `/assets/`. */
export function webRoutes() {
  const app = new Elysia({ name: "routes/web" })
    // Build the bundle when a server starts listening, so the first visitor does not wait for it.
    .onStart(() => {
      void webAssets().catch(() => {});
    })
    .get(
      "/assets/:name",
      async ({ params, request, set }) => {
        const asset = (await webAssets()).files.get(params.name);
        if (!asset) throw new AppError("NOT_FOUND", "No such asset.");
        set.headers["cache-control"] = IMMUTABLE;
        set.headers.etag = asset.etag;
        if (request.headers.get("if-none-match") === asset.etag) {
          set.status = 304;
          return "";
        }
        set.headers["content-type"] = asset.type;
        set.headers.vary = "accept-encoding";
        if (/\bgzip\b/.test(request.headers.get("accept-encoding") ?? "")) {
          set.headers["content-encoding"] = "gzip";
          return new Response(asset.gzip);
        }
        return new Response(asset.body);
      },
      { detail: ASSET_DOC },
    );
  for (const page of PAGES) app.get(page.path, pageRoute(page), { detail: pageDoc(page) });
  return app;
}
