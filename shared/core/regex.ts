/** Regular expressions built from data (schemas, lists) are compiled once per source and flags. */
const compiled = new Map<string, RegExp>();

export function compiledRegExp(source: string, flags = ""): RegExp {
  const key = `${flags}/${source}`;
  let pattern = compiled.get(key);
  if (!pattern) {
    pattern = new RegExp(source, flags);
    compiled.set(key, pattern);
  }
  return pattern;
}

/** `text` matched literally inside a regular expression. */
export function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}
