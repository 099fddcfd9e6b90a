import { type DocumentDecoration, Elysia, t } from "elysia";
import type { Deps } from "../../../shared/context/deps";
import type { ErrorKind } from "../../../shared/core/errors";
import { createShareLink, listShareLinks, revokeShareLink } from "../../../shared/sharing/links";
import {
  CreatedShareLinkSchema,
  RevokedShareLinkSchema,
  ShareLinkInputSchema,
  ShareLinkListSchema,
} from "../../../shared/sharing/schemas";
import { failures } from "../../openapi/declare";
import { ctxOf } from "../../requestState";
import { type Mount, V1 } from "../mount";
import { sharedRecordRoutes } from "../sharedRecord";

const LinkParams = t.Object({ id: t.String({ description: "A share link's `id`." }) });

const DOCS = {
  create: [
    "Create a read-only share link to the health record",
    "For a doctor: `url` opens a summary page (`GET /share/{token}`) and a FHIR R4 download (`GET /share/{token}/fhir`) with no sign-in, until `expiresAt` (1–30 days, default 7) or until revoked. The token is in `url` only, in this answer only; only its SHA-256 is stored. At most 20 links may be open (neither expired nor revoked) at once: a 21st is 409. Needs consent.",
  ],
  list: [
    "List share links, newest first",
    "Every link with its status (`active`, `expired`, `revoked`), how many times it was opened and when last; never its token or URL.",
  ],
  revoke: [
    "Revoke a share link",
    "The link answers 404 from then on. Revoking a revoked link again answers 200 and keeps the first `revokedAt`. Another account's link, an unknown id or one that is not a UUID: 404. Does not need consent.",
  ],
} as const;

/** `…/health/share-links`: the account's share links. The public pages they open are V1 only (no mirror). */
export function shareLinkRoutes(deps: Deps, mount: Mount = V1) {
  const detail = (
    [summary, description]: readonly [string, string],
    responses: DocumentDecoration["responses"],
    ...kinds: ErrorKind[]
  ) => failures({ tags: mount.tags("Health"), summary, description, ...(responses ? { responses } : {}) }, ...kinds);
  const path = `${mount.base}/health/share-links`;
  const routes = new Elysia({ name: `routes/health/shareLinks${mount.suffix}` })
    .post(
      path,
      async ({ request, body, set }) => {
        const created = await createShareLink(ctxOf(deps, request), body);
        set.status = 201;
        return created;
      },
      {
        body: ShareLinkInputSchema,
        response: { 201: CreatedShareLinkSchema },
        detail: detail(
          DOCS.create,
          { 201: { description: "The link, with its `url` shown this once." } },
          "CONSENT_REQUIRED",
          "CONFLICT",
        ),
      },
    )
    .get(path, ({ request }) => listShareLinks(ctxOf(deps, request)), {
      response: ShareLinkListSchema,
      detail: detail(DOCS.list, undefined),
    })
    .delete(`${path}/:id`, ({ request, params }) => revokeShareLink(ctxOf(deps, request), { id: params.id }), {
      params: LinkParams,
      response: RevokedShareLinkSchema,
      detail: detail(DOCS.revoke, undefined, "NOT_FOUND"),
    });
  if (mount !== V1) return routes;
  return routes.use(sharedRecordRoutes(deps));
}
