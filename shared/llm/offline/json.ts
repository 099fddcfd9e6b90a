/** Defensive reads of tool outputs (`any`-free): each field is checked before it is used. */
export type Json = Record<string, unknown>;

export const obj = (value: unknown): Json => (value && typeof value === "object" ? (value as Json) : {});
export const list = (value: unknown): unknown[] => (Array.isArray(value) ? value : []);
export const str = (value: unknown): string | undefined => (typeof value === "string" && value ? value : undefined);
export const strings = (value: unknown): string[] => list(value).filter((x): x is string => typeof x === "string");
