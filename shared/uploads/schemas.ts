import { type Static, Type as T } from "@sinclair/typebox";
import { Text } from "../core/text";
import { UPLOAD_TYPES } from "./types";

export const UploadStatusSchema = T.Union(
  [T.Literal("pending"), T.Literal("uploaded"), T.Literal("processing"), T.Literal("ready"), T.Literal("failed")],
  {
    description:
      "pending: presigned, bytes not received; uploaded: bytes stored; processing: being checked; ready: usable as a chat attachment; failed: see failureReason.",
  },
);
export type UploadStatus = Static<typeof UploadStatusSchema>;

export const PresignInputSchema = T.Object(
  {
    scope: T.Literal("health", { description: "Only health uploads exist." }),
    filename: Text({ minLength: 1, maxLength: 255, pattern: "\\S" }),
    contentType: Text({ minLength: 1, maxLength: 100, description: Object.keys(UPLOAD_TYPES).join(", ") }),
    size: T.Integer({ minimum: 1, description: "Bytes; the PUT must carry exactly this many." }),
  },
  { additionalProperties: false },
);
export type PresignInput = Static<typeof PresignInputSchema>;

export const PresignResultSchema = T.Object({
  fileId: T.String({ format: "uuid" }),
  uploadUrl: T.String(),
  method: T.Literal("PUT"),
  headers: T.Record(T.String(), T.String(), { description: "Send exactly these headers with the PUT." }),
  expiresAt: T.String({ format: "date-time" }),
});

export const UploadInfoSchema = T.Object({
  fileId: T.String({ format: "uuid" }),
  scope: T.Literal("health"),
  filename: T.String(),
  contentType: T.String(),
  size: T.Integer(),
  status: UploadStatusSchema,
  failureReason: T.Union([T.String(), T.Null()]),
  sha256: T.Union([T.String(), T.Null()]),
  details: T.Object(
    {
      pages: T.Optional(T.Integer({ description: "PDF pages." })),
      textCharacters: T.Optional(T.Integer({ description: "Characters of text extracted (PDF, text)." })),
      width: T.Optional(T.Integer()),
      height: T.Optional(T.Integer()),
      modelCopy: T.Optional(
        T.Object(
          { width: T.Integer(), height: T.Integer(), contentType: T.String() },
          {
            description: "A downscaled JPEG for models with image size limits (large images only).",
          },
        ),
      ),
    },
    { additionalProperties: false },
  ),
  expiresAt: T.Union([T.String({ format: "date-time" }), T.Null()], {
    description: "pending only: when the upload URL lapses.",
  }),
  createdAt: T.String({ format: "date-time" }),
  updatedAt: T.String({ format: "date-time" }),
});
export type UploadInfo = Static<typeof UploadInfoSchema>;
export type UploadDetails = UploadInfo["details"];
