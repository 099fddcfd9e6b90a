import type { TextResourceContents } from "@modelcontextprotocol/server";

export const JSON_TYPE = "application/json";

/** A record as a resource's JSON text. */
export const jsonContents = (uri: string, value: unknown): TextResourceContents => ({
  uri,
  mimeType: JSON_TYPE,
  text: JSON.stringify(value),
});
