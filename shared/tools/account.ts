import { Type as T } from "@sinclair/typebox";
import { describeAccount } from "../auth/describeAccount";
import { AccountInfoSchema } from "../auth/schemas";
import { AppError } from "../core/errors";
import { Text } from "../core/text";
import { getUpload } from "../uploads/files";
import { UploadInfoSchema } from "../uploads/schemas";
import { READ_ONLY } from "./annotations";
import { defineTool } from "./types";

export const getAccountTool = defineTool({
  name: "get_account",
  title: "Plan and remaining quota",
  description:
    "Returns the caller's plan, its limits (requests per hour, largest paper-search page, whether health tools are included) and how many requests are left in the rolling hour.",
  input: T.Object({}, { additionalProperties: false }),
  output: AccountInfoSchema,
  annotations: READ_ONLY,
  scope: "account:read",
  run: (ctx) => {
    const { rate } = ctx;
    if (!rate) throw new AppError("BAD_REQUEST", "The account tool answers only on a direct API or MCP request.");
    return describeAccount({ ...ctx, rate });
  },
  render: (info) =>
    `Plan ${info.plan}: ${info.usage.remaining} of ${info.usage.limit} requests left this hour; health ${info.limits.health ? "included" : "not included"}.`,
});

export const getUploadTool = defineTool({
  name: "get_upload",
  title: "Status of an uploaded file",
  description:
    "One of the caller's uploads: status (pending, uploaded, processing, ready, failed with a reason), type, size, sha256 and details (pages, text characters, image size). Only ready files can be chat attachments.",
  input: T.Object({ fileId: Text({ minLength: 1, maxLength: 64 }) }, { additionalProperties: false }),
  output: UploadInfoSchema,
  annotations: READ_ONLY,
  scope: "health:read",
  feature: "health",
  run: (ctx, input) => getUpload(ctx, input),
  render: (u) => `${u.filename}: ${u.status}${u.failureReason ? ` (${u.failureReason})` : ""}.`,
});
