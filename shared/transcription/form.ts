import { AppError } from "../core/errors";

/**
 * Reads a multipart/form-data body. Bun's parser types a file part by its file name's extension and
 * ignores the part's own Content-Type header ("x.wav" sent as audio/mpeg comes back as
 * audio/x-wav), so each part's declared type is read from the raw part headers instead and set on
 * the returned File. Fields repeated in the form come back as arrays (the schema then refuses them).
 */
export async function readMultipart(request: Request): Promise<Record<string, unknown>> {
  const contentType = request.headers.get("content-type") ?? "";
  const boundary = /boundary="?([^";]+)"?/i.exec(contentType)?.[1];
  if (!contentType.toLowerCase().startsWith("multipart/form-data") || !boundary) {
    throw new AppError("UNSUPPORTED_MEDIA_TYPE", "Send a multipart/form-data body with the fields audio and provider.");
  }
  const raw = Buffer.from(await request.arrayBuffer());
  const form = await new Response(raw, { headers: { "content-type": contentType } }).formData().catch((cause) => {
    throw new AppError("BAD_REQUEST", "The multipart/form-data body could not be parsed.", { cause });
  });
  const declared = partTypes(raw, boundary);
  const body: Record<string, unknown> = {};
  for (const [name, value] of form.entries()) {
    const entry = typeof value === "string" ? value : new File([value], value.name, { type: declared.get(name) ?? "" });
    const previous = body[name];
    body[name] = previous === undefined ? entry : [previous, entry].flat();
  }
  return body;
}

/** Field name → Content-Type header of its (first) part, read from the part headers. */
function partTypes(raw: Buffer, boundary: string): Map<string, string> {
  const types = new Map<string, string>();
  const delimiter = Buffer.from(`--${boundary}\r\n`);
  for (let at = raw.indexOf(delimiter); at !== -1; at = raw.indexOf(delimiter, at + delimiter.length)) {
    const start = at + delimiter.length;
    const end = raw.indexOf("\r\n\r\n", start);
    // Part headers are short; a delimiter followed by none is not a part start.
    if (end === -1 || end - start > 8192) continue;
    const headers = raw.toString("latin1", start, end);
    const name = /content-disposition:[^\r\n]*;\s*name="([^"]*)"/i.exec(headers)?.[1];
    const type = /^content-type:\s*([^\r\n]*)/im.exec(headers)?.[1];
    if (name !== undefined && type && !types.has(name)) types.set(name, type.trim());
  }
  return types;
}
