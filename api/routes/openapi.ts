import { Elysia, type InternalRoute } from "elysia";
import type { Deps } from "../../shared/context/deps";
import { publicUrl } from "../../shared/core/env";
import { openApiDocument } from "../openapi/document";

/** Scalar's API reference from its CDN, reading /openapi.json (the CSP for /docs allows exactly this). */
const SCALAR = "https://cdn.jsdelivr.net/npm/@scalar/api-reference@1/dist/browser/standalone.min.js";

const DOCS_PAGE = `<!doctype html>
<html lang="en">
  <head>
    <meta charset="utf-8" />
    <meta name="viewport" content="width=device-width, initial-scale=1" />
    <title>Papers &amp; Health API reference</title>
  </head>
  <body>
    <script id="api-reference" data-url="/openapi.json"></script>
    <script src="${SCALAR}" crossorigin></script>
  </body>
</html>
`;

/**
 * The OpenAPI document and its reference page. The document is generated from the app's routes
 * (`routes()`, read at the first request, once every route is registered) and kept as text.
 */
export function openApiRoutes(deps: Pick<Deps, "env">, routes: () => readonly InternalRoute[]) {
  let document: string | undefined;
  return new Elysia({ name: "routes/openapi" })
    .get(
      "/openapi.json",
      () => {
        document ??= JSON.stringify(openApiDocument(routes(), publicUrl(deps.env)));
        return new Response(document, { headers: { "content-type": "application/json; charset=utf-8" } });
      },
      {
        detail: {
          tags: ["Service"],
          summary: "This OpenAPI 3.1 document",
          responses: {
            200: { description: "The document.", content: { "application/json": { schema: { type: "object" } } } },
          },
        },
      },
    )
    .get("/docs", () => new Response(DOCS_PAGE, { headers: { "content-type": "text/html; charset=utf-8" } }), {
      detail: {
        tags: ["Service"],
        summary: "The API reference page (Scalar, reading /openapi.json)",
        responses: { 200: { description: "An HTML page.", content: { "text/html": { schema: { type: "string" } } } } },
      },
    });
}
