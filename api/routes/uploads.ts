import { Elysia, t } from "elysia";
import { contextFor } from "../../shared/context/ctx";
import type { Deps } from "../../shared/context/deps";
import { publicUrl } from "../../shared/core/env";
import type { ErrorKind } from "../../shared/core/errors";
import { Text } from "../../shared/core/text";
import { completeUpload, getUpload, presignUpload, receiveSignedUpload } from "../../shared/uploads/files";
import {
  PresignInputSchema,
  PresignResultSchema,
  UploadInfoSchema,
  UploadStatusSchema,
} from "../../shared/uploads/schemas";
import { failures } from "../openapi/declare";
import { requestBody } from "../openapi/media";
import { ctxOf, stateOf } from "../requestState";
import { type Mount, V1 } from "./mount";

const FileParams = t.Object({ fileId: t.String() });
/**
 * Presigned uploads: presign → PUT the bytes → complete → processing on a worker → ready | failed.
 * The website mounts presign, complete and status; the signed PUT URL presign returns is the same
 * v1 URL for both (its signature, not a key or a session, authorizes it).
 */
export function uploadRoutes(deps: Deps, mount: Mount = V1) {
  const detail = (summary: string, description: string, ...kinds: ErrorKind[]) =>
    failures({ tags: mount.tags("Uploads"), summary, description }, ...kinds);
  const routes = new Elysia({ name: `routes/uploads${mount.suffix}` })
    .post(
      `${mount.base}/uploads/presign`,
      ({ request, body, set }) => {
        set.status = 201;
        return presignUpload(ctxOf(deps, request), { ...body, baseUrl: publicUrl(deps.env) });
      },
      {
        body: PresignInputSchema,
        response: { 201: PresignResultSchema },
        detail: detail(
          "Start an upload",
          "A pending upload and the URL to PUT its bytes to (with exactly the returned headers). PDF, PNG, JPEG, WebP or plain text (else 415), at most UPLOAD_MAX_BYTES (else 413).",
          "UNSUPPORTED_MEDIA_TYPE",
          "CONSENT_REQUIRED",
        ),
      },
    )
    .post(`${mount.base}/uploads/complete`, ({ request, body }) => completeUpload(ctxOf(deps, request), body), {
      body: t.Object({ fileId: Text({ minLength: 1, maxLength: 64 }) }, { additionalProperties: false }),
      response: t.Object({ fileId: t.String(), status: UploadStatusSchema }),
      detail: detail(
        "Finish an upload",
        "Starts processing (409 before the bytes arrived); repeating it answers the current status.",
        "NOT_FOUND",
        "CONFLICT",
      ),
    })
    .get(`${mount.base}/uploads/:fileId`, ({ request, params }) => getUpload(ctxOf(deps, request), params), {
      params: FileParams,
      response: UploadInfoSchema,
      detail: detail("An upload's status and what processing found", "Another account's upload is 404.", "NOT_FOUND"),
    });
  if (mount !== V1) return routes;
  return routes.put(
    "/api/v1/uploads/:fileId/content",
    ({ request, params, query }) => {
      const length = request.headers.get("content-length");
      return receiveSignedUpload(contextFor(deps, stateOf(request).requestId), {
        fileId: params.fileId,
        expires: query.expires,
        signature: query.signature,
        contentType: request.headers.get("content-type") ?? "",
        contentLength: length === null ? undefined : Number(length),
        body: async () => new Uint8Array(await request.arrayBuffer()),
      });
    },
    {
      // The bytes are the file; nothing is parsed.
      parse: "none",
      params: FileParams,
      query: t.Object({ expires: t.Integer(), signature: Text({ maxLength: 100 }) }),
      response: t.Object({ fileId: t.String(), status: t.Literal("uploaded") }),
      detail: failures(
        {
          tags: ["Uploads"],
          summary: "The signed upload URL (local storage)",
          description:
            "No API key: the signature authorizes one PUT of the declared size and Content-Type before it expires (403 otherwise; 413 when larger; 409 once used).",
          requestBody: requestBody({
            "*/*": { schema: { type: "string", contentMediaType: "application/octet-stream" } },
          }),
        },
        "FORBIDDEN",
        "NOT_FOUND",
        "CONFLICT",
        "BAD_REQUEST",
      ),
    },
  );
}
