import { Elysia, t } from "elysia";
import { contextFor } from "../../shared/context/ctx";
import type { Deps } from "../../shared/context/deps";
import { AppError } from "../../shared/core/errors";
import { HealthBundleSchema } from "../../shared/healthRecords/schemas";
import { openSharedBundle, openSharedRecord } from "../../shared/sharing/open";
import { failures } from "../openapi/declare";
import { HTML, response } from "../openapi/media";
import { wireSchema } from "../openapi/wireSchema";
import { clientAddressOf, type PeerSource } from "../plugins/clientAddress";
import { stateOf } from "../requestState";
import { webAssets } from "../web/assets";
import { renderSharedRecord, renderShareRefusal, SHARE_PAGE_CSP } from "../web/sharePage";

const TokenParams = t.Object({ token: t.String({ description: "The token of a share link's URL." }) });

/** Search engines and link previews are asked to keep away; nothing here may be cached or framed. */
const NO_INDEX = "noindex, nofollow, noarchive";

const PAGE_DOC = failures(
  {
    tags: ["Health"],
    summary: "A shared health record: the summary page for a doctor (no sign-in)",
    description:
      "Read-only HTML: conditions, medications, allergies, immunizations (latest per vaccine), lab tests with their trends, symptom-log summaries, when the link expires, and a link to the FHIR download. No account identifier. An unknown, expired or revoked link (or one whose owner withdrew consent or left the plan) is the same 404 page. Each open is recorded. At most SHARE_LINK_REQUESTS_PER_ADDRESS_PER_MINUTE requests per client address per minute (429 page with Retry-After).",
    responses: {
      200: response("The summary page.", HTML),
      404: response("The link does not work: the same page whatever the reason.", HTML),
      429: response("Too many requests from this address.", HTML),
    },
  },
  "NOT_FOUND",
  "RATE_LIMITED",
);

const FHIR_DOC = failures(
  {
    tags: ["Health"],
    summary: "A shared health record as FHIR R4 (no sign-in)",
    description:
      "The same `collection` Bundle as the record export (`/health/records/export`): a Patient named as the newest import names them, never with an account identifier, then conditions, medications, allergies, immunizations and lab panels. A link that does not work is the documented JSON 404, whatever the reason. Each open is recorded. Shares the page's limit per client address.",
    responses: {
      200: response(
        "The record, as a file (`Content-Disposition: attachment`).",
        { "application/fhir+json": { schema: wireSchema(HealthBundleSchema) } },
        { "Content-Disposition": { schema: { type: "string" }, description: "`attachment; filename=…`" } },
      ),
    },
  },
  "NOT_FOUND",
  "RATE_LIMITED",
);

/**
 * `/share/{token}` and `/share/{token}/fhir`: what a share link opens, for anyone holding it. The
 * access policy lets them through without a credential (api/plugins/access.ts); the verbs count
 * each request against its client address and record each open.
 */
export function sharedRecordRoutes(deps: Deps) {
  const addressOf = clientAddressOf(deps.env);
  const visit = (request: Request, server: PeerSource | null, token: string) => ({
    token,
    client: addressOf(request, server),
    userAgent: request.headers.get("user-agent"),
  });
  const ctx = (request: Request) => contextFor(deps, stateOf(request).requestId);
  return new Elysia({ name: "routes/sharedRecord" })
    .get(
      "/share/:token",
      async ({ request, params, server, set }) => {
        set.headers["x-robots-tag"] = NO_INDEX;
        set.headers["content-security-policy"] = SHARE_PAGE_CSP;
        set.headers["content-type"] = "text/html; charset=utf-8";
        const { style } = await webAssets();
        try {
          const record = await openSharedRecord(ctx(request), visit(request, server, params.token));
          return renderSharedRecord(record, { token: params.token, stylesheet: style });
        } catch (error) {
          if (!(error instanceof AppError) || (error.kind !== "NOT_FOUND" && error.kind !== "RATE_LIMITED")) {
            // The error handler answers in JSON, as every other failure.
            set.headers["content-type"] = "application/json; charset=utf-8";
            throw error;
          }
          set.status = error.status;
          Object.assign(set.headers, error.headers);
          return renderShareRefusal(error.kind, style);
        }
      },
      { params: TokenParams, detail: PAGE_DOC },
    )
    .get(
      "/share/:token/fhir",
      async ({ request, params, server, set }) => {
        set.headers["x-robots-tag"] = NO_INDEX;
        const bundle = await openSharedBundle(ctx(request), visit(request, server, params.token));
        set.headers["content-type"] = "application/fhir+json; fhirVersion=4.0; charset=utf-8";
        set.headers["content-disposition"] =
          `attachment; filename="health-record-${bundle.timestamp?.slice(0, 10) ?? "shared"}.fhir.json"`;
        return JSON.stringify(bundle);
      },
      { params: TokenParams, detail: FHIR_DOC },
    );
}
