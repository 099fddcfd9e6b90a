import type { ParsedText, Token } from "./nlp";
import { indexTokens, type StartIndex, startWordId, type WordTest, wordMatches } from "./startWords";

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

/** A phrase's words; its first word also has an id in the start index, where its positions are looked up. */
interface Phrase {
  words: WordTest[];
  first: number;
}
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

function compilePhrase(words: WordTest[]): Phrase {
  return { words, first: words[0] ? startWordId(words[0]) : -1 };
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
      .filter((words) => words.length > 0)
      .map(compilePhrase),
  );
  return { terms, window: windowMatch ? Number(windowMatch[1]) : DEFAULT_WINDOW };
}

/** Concepts from `{ ID: [pattern, …] }`, compiled once. */
export function defineConcepts(table: Record<string, string[]>): Concept[] {
  return Object.entries(table).map(([id, patterns]) => ({ id, patterns: patterns.map(compilePattern) }));
}

interface Span {
  start: number;
  end: number;
}

/** Every place one term (any of its phrases) occurs. */
function termOccurrences(term: Phrase[], tokens: Token[], index: StartIndex): Span[] {
  const spans: Span[] = [];
  for (const { words, first } of term) {
    const starts = index.positions[first];
    if (!starts) continue;
    for (const i of starts) {
      const sentence = tokens[i]?.sentence;
      let fits = true;
      for (let k = 1; k < words.length && fits; k++) {
        const token = tokens[i + k];
        fits = token !== undefined && token.sentence === sentence && wordMatches(words[k] as WordTest, token);
      }
      if (fits) spans.push({ start: i, end: i + words.length });
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

const NONE: number[] = [];

/** A table's patterns in order, and for each start word the patterns whose first term can begin with it. */
interface TableIndex {
  patterns: { concept: number; pattern: Pattern }[];
  byStart: Map<number, number[]>;
}

const tables = new WeakMap<Concept[], TableIndex>();

function indexTable(concepts: Concept[]): TableIndex {
  const cached = tables.get(concepts);
  if (cached) return cached;
  const table: TableIndex = { patterns: [], byStart: new Map() };
  concepts.forEach((concept, c) => {
    for (const pattern of concept.patterns) {
      const ordinal = table.patterns.push({ concept: c, pattern }) - 1;
      for (const { first } of pattern.terms[0] ?? []) {
        const list = table.byStart.get(first);
        if (!list) table.byStart.set(first, [ordinal]);
        else if (list[list.length - 1] !== ordinal) list.push(ordinal);
      }
    }
  });
  tables.set(concepts, table);
  return table;
}

/** The table's patterns whose first term has a start word in the text, in table order. */
function candidatePatterns(table: TableIndex, index: StartIndex): number[] {
  const candidates = new Set<number>();
  for (const id of index.present) for (const ordinal of table.byStart.get(id) ?? NONE) candidates.add(ordinal);
  return [...candidates].sort((a, b) => a - b);
}

/**
 * Every match of every concept in the text, one per distinct span. Only patterns whose first term
 * can start at one of the text's tokens are tried (in table order, so the matches come out as if
 * every pattern had been).
 */
export function findConcepts(parsed: ParsedText, concepts: Concept[]): ConceptMatch[] {
  const { tokens } = parsed;
  const index = indexTokens(parsed);
  const table = indexTable(concepts);
  const matches: ConceptMatch[] = [];
  let seen = new Set<string>();
  let seenFor = -1;
  for (const ordinal of candidatePatterns(table, index)) {
    const { concept, pattern } = table.patterns[ordinal] as TableIndex["patterns"][number];
    const occurrences: Span[][] = [];
    for (const term of pattern.terms) {
      const spans = termOccurrences(term, tokens, index);
      if (spans.length === 0) break;
      occurrences.push(spans);
    }
    if (occurrences.length < pattern.terms.length) continue;
    // Spans are distinct per concept, across its patterns.
    if (concept !== seenFor) {
      seen = new Set();
      seenFor = concept;
    }
    const id = concepts[concept]?.id ?? "";
    for (const span of combine(occurrences, pattern.window, tokens)) {
      const key = span.words.join(",");
      if (seen.has(key)) continue;
      seen.add(key);
      matches.push({ concept: id, ...span, sentence: tokens[span.start]?.sentence ?? 0 });
    }
  }
  return matches;
}
