import type { ParsedText, Token } from "./nlp";

/**
 * Concepts are matched on lemmas within a window of tokens, order-free, inside one sentence, so
 * one pattern covers "stiff neck", "my neck is so stiff" and "neck feels really stiff".
 *
 * Pattern syntax (compiled once at load):
 * - terms joined by " & " must all occur with at most N other tokens between and around them
 *   (the window: default 6, "~N" at the end sets it);
 * - "a|b|c" are alternatives for one term; "coffee ground" is a phrase (consecutive tokens);
 * - "word*" matches by prefix ("anaphyla*"), "=word" the written form only, not the lemma
 *   ("=having" is not "had").
 * A word matches a token when it equals the token's lemma or its written form.
 */
export interface ConceptMatch {
  concept: string;
  /** First token of the match. */
  start: number;
  /** One past the last token. */
  end: number;
  sentence: number;
  /** The tokens the pattern's words matched (a window may hold other words between them). */
  words: number[];
}

interface WordTest {
  value: string;
  prefix: boolean;
  surfaceOnly: boolean;
}
type Phrase = WordTest[];
interface Pattern {
  terms: Phrase[][];
  window: number;
}
export interface Concept {
  id: string;
  patterns: Pattern[];
}

const DEFAULT_WINDOW = 6;

function compileWord(word: string): WordTest {
  const surfaceOnly = word.startsWith("=");
  const bare = surfaceOnly ? word.slice(1) : word;
  const prefix = bare.endsWith("*");
  return { value: prefix ? bare.slice(0, -1) : bare, prefix, surfaceOnly };
}

function compilePattern(source: string): Pattern {
  const windowMatch = source.match(/\s*~(\d+)\s*$/);
  const body = windowMatch ? source.slice(0, windowMatch.index) : source;
  const terms = body.split(" & ").map((term) =>
    term
      .split("|")
      .map((alternative) =>
        alternative
          .trim()
          .split(/[\s-]+/)
          .filter(Boolean)
          .map(compileWord),
      )
      .filter((phrase) => phrase.length > 0),
  );
  return { terms, window: windowMatch ? Number(windowMatch[1]) : DEFAULT_WINDOW };
}

/** Concepts from `{ ID: [pattern, …] }`, compiled once. */
export function defineConcepts(table: Record<string, string[]>): Concept[] {
  return Object.entries(table).map(([id, patterns]) => ({ id, patterns: patterns.map(compilePattern) }));
}

function wordMatches(test: WordTest, token: Token): boolean {
  const candidates = test.surfaceOnly ? [token.text] : [token.lemma, token.text];
  return candidates.some((candidate) => (test.prefix ? candidate.startsWith(test.value) : candidate === test.value));
}

interface Span {
  start: number;
  end: number;
}

/** Token positions by lemma and by written form, so a term looks up its first word instead of scanning. */
type TokenIndex = Map<string, number[]>;

const indexes = new WeakMap<ParsedText, TokenIndex>();

/** One index per parsed text, shared by every concept table matched against it. */
function indexTokens(parsed: ParsedText): TokenIndex {
  const cached = indexes.get(parsed);
  if (cached) return cached;
  const { tokens } = parsed;
  const index: TokenIndex = new Map();
  indexes.set(parsed, index);
  tokens.forEach((token, i) => {
    for (const key of new Set([token.lemma, token.text])) {
      const list = index.get(key);
      if (list) list.push(i);
      else index.set(key, [i]);
    }
  });
  return index;
}

function startsOf(test: WordTest, tokens: Token[], index: TokenIndex): number[] {
  if (!test.prefix && !test.surfaceOnly) return index.get(test.value) ?? [];
  // Prefix and written-form tests scan the tokens once per text, then come from the same cache.
  const key = `${test.prefix ? "*" : "="}${test.value}`;
  let list = index.get(key);
  if (!list) {
    list = tokens.flatMap((token, i) => (wordMatches(test, token) ? [i] : []));
    index.set(key, list);
  }
  return list;
}

/** Every place one term (any of its phrases) occurs. */
function termOccurrences(term: Phrase[], tokens: Token[], index: TokenIndex): Span[] {
  const spans: Span[] = [];
  for (const phrase of term) {
    const [first] = phrase;
    if (!first) continue;
    for (const i of startsOf(first, tokens, index)) {
      const fits = phrase.every((test, k) => {
        const token = tokens[i + k];
        return token !== undefined && token.sentence === tokens[i]?.sentence && wordMatches(test, token);
      });
      if (fits) spans.push({ start: i, end: i + phrase.length });
    }
  }
  return spans;
}

/** Every combination of one occurrence per term inside the window, searched depth-first. */
function combine(occurrences: Span[][], window: number, tokens: Token[]): (Span & { words: number[] })[] {
  const found: (Span & { words: number[] })[] = [];
  const walk = (term: number, chosen: Span[]) => {
    if (term === occurrences.length) {
      const start = Math.min(...chosen.map((span) => span.start));
      const end = Math.max(...chosen.map((span) => span.end));
      const ownWords = chosen.reduce((sum, span) => sum + span.end - span.start, 0);
      if (end - start - ownWords > window) return;
      const words = chosen.flatMap((span) => Array.from({ length: span.end - span.start }, (_, k) => span.start + k));
      found.push({ start, end, words });
      return;
    }
    for (const span of occurrences[term] ?? []) {
      const first = chosen[0];
      if (first && tokens[span.start]?.sentence !== tokens[first.start]?.sentence) continue;
      if (chosen.some((other) => span.start < other.end && other.start < span.end)) continue;
      const start = Math.min(span.start, ...chosen.map((other) => other.start));
      const end = Math.max(span.end, ...chosen.map((other) => other.end));
      // Terms still to place may fill the gap, so partial combinations get their room; the exact
      // test is made once every term is placed.
      const ownWords = [...chosen, span].reduce((sum, other) => sum + other.end - other.start, 0);
      const remaining = occurrences.length - term - 1;
      if (end - start - ownWords > window + remaining * 3) continue;
      walk(term + 1, [...chosen, span]);
    }
  };
  walk(0, []);
  return found;
}

/** Every match of every concept in the text, one per distinct span. */
export function findConcepts(parsed: ParsedText, concepts: Concept[]): ConceptMatch[] {
  const { tokens } = parsed;
  const index = indexTokens(parsed);
  const matches: ConceptMatch[] = [];
  for (const concept of concepts) {
    const seen = new Set<string>();
    for (const pattern of concept.patterns) {
      const occurrences = pattern.terms.map((term) => termOccurrences(term, tokens, index));
      if (occurrences.some((list) => list.length === 0)) continue;
      for (const span of combine(occurrences, pattern.window, tokens)) {
        const key = span.words.join(",");
        if (seen.has(key)) continue;
        seen.add(key);
        matches.push({ concept: concept.id, ...span, sentence: tokens[span.start]?.sentence ?? 0 });
      }
    }
  }
  return matches;
}
