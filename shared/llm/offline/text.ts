import { escapeRegExp } from "../../core/regex";
/** Word-level helpers the offline model reads messages and label text with. */

export const STOPWORDS = new Set(
  `a about after again all am an and any are as at be been before being but by can could did do does doing
  for from had has have having he her here his how i if in into is it its just me more most my no nor not
  of off on once only or other our out over own same she should so some such than that the their them then
  there these they this those through to too under until up very was we were what when where which while who
  whom why will with would you your yours please tell explain know want need find show give latest recent
  research paper papers study studies literature evidence new any there much many really also get gets got
  getting like feel feels feeling say says said known anything something everything thing things lot lots
  make makes made use used people someone`.split(/\s+/),
);

/** Only the start of a long message is searched for names: enough for any question, bounded work. */
const SCANNED = 4_000;

export function words(text: string): string[] {
  return (
    text
      .slice(0, SCANNED)
      .toLowerCase()
      .match(/[\p{L}\p{N}][\p{L}\p{N}'-]*/gu) ?? []
  );
}

export function keywords(text: string, max = 6): string[] {
  return [...new Set(words(text).filter((word) => word.length > 2 && !STOPWORDS.has(word)))].slice(0, max);
}

/** "migraines" → "migraine", "allergies" → "allergy"; short words and "-ss" words stay. */
export function singular(word: string): string {
  if (word.length > 4 && word.endsWith("ies")) return `${word.slice(0, -3)}y`;
  if (word.length > 4 && word.endsWith("s") && !/(ss|us|is)$/.test(word)) return word.slice(0, -1);
  return word;
}

/** Every run of 1–`size` words, as written and with its last word singular, in text order. */
export function phrases(text: string, size = 5): string[] {
  const list = words(text).map((word) => word.replace(/'s$/, ""));
  const out = new Set<string>();
  for (let i = 0; i < list.length; i++) {
    for (let n = 1; n <= size && i + n <= list.length; n++) {
      const run = list.slice(i, i + n);
      out.add(run.join(" "));
      out.add([...run.slice(0, -1), singular(run.at(-1) as string)].join(" "));
    }
  }
  return [...out];
}

/** A case-insensitive whole-word pattern for any of the terms. */
export function termPattern(terms: readonly string[]): RegExp | undefined {
  const unique = [...new Set(terms.map((term) => term.trim().toLowerCase()).filter((term) => term.length >= 3))];
  if (unique.length === 0) return undefined;
  const alternatives = unique.sort((a, b) => b.length - a.length).map(escapeRegExp);
  return new RegExp(`(?<![\\p{L}\\p{N}])(?:${alternatives.join("|")})(?![\\p{L}\\p{N}])`, "iu");
}

/**
 * Whether the phrase is written in capitals somewhere in the text ("ALL", "COPD"). In a text with
 * no lowercase letters at all, capitals say nothing, so it is not.
 */
export function writtenInCapitals(text: string, phrase: string): boolean {
  if (!/\p{Ll}/u.test(text)) return false;
  const written = new RegExp(`(?<![\\p{L}\\p{N}])${escapeRegExp(phrase)}(?![\\p{L}\\p{N}])`, "giu");
  return [...text.matchAll(written)].some((match) => match[0] === match[0].toUpperCase());
}

export function mentions(text: string, term: string): boolean {
  return termPattern([term])?.test(text) ?? false;
}

export const clip = (text: string, max = 400) => (text.length > max ? `${text.slice(0, max).trimEnd()}…` : text);

/** Up to `max` excerpts of `text` around matches of `pattern`, each about `width` characters. */
export function excerpts(text: string, pattern: RegExp, max = 2, width = 240): string[] {
  const global = new RegExp(pattern.source, "giu");
  const out: string[] = [];
  let lastEnd = -1;
  for (const match of text.matchAll(global)) {
    const at = match.index ?? 0;
    if (at < lastEnd) continue;
    const start = sentenceStart(text, at, width / 2);
    const end = Math.min(text.length, Math.max(at + match[0].length + width / 2, start + width));
    out.push(`${start > 0 ? "…" : ""}${text.slice(start, end).trim()}${end < text.length ? "…" : ""}`);
    lastEnd = end;
    if (out.length >= max) break;
  }
  return out;
}

/** Where an excerpt around `at` starts: a sentence start within `reach` characters, else a word start. */
function sentenceStart(text: string, at: number, reach: number): number {
  const from = Math.max(0, at - reach);
  const window = text.slice(from, at);
  const stop = Math.max(window.lastIndexOf(". "), window.lastIndexOf("; "));
  if (stop >= 0) return from + stop + 2;
  const space = window.indexOf(" ");
  return from === 0 ? 0 : from + Math.max(0, space + 1);
}
