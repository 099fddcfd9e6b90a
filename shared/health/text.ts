/** Trims every item and drops repeats, ignoring case; the first spelling sent is kept. */
export function uniqueTrimmed(items: readonly string[] = []): string[] {
  const seen = new Set<string>();
  const kept: string[] = [];
  for (const item of items) {
    const trimmed = item.trim();
    const key = trimmed.toLowerCase();
    if (trimmed === "" || seen.has(key)) continue;
    seen.add(key);
    kept.push(trimmed);
  }
  return kept;
}
