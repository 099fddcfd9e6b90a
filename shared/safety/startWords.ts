import type { ParsedText, Token } from "./nlp";

/**
 * The first words of every compiled concept phrase, and for each parsed text the tokens they match,
 * so a message's tokens find the phrases that can start at them with a few map lookups each instead
 * of every phrase testing every token (conceptMatch.ts). Built once per process, as tables compile.
 */
export interface WordTest {
  value: string;
  prefix: boolean;
  surfaceOnly: boolean;
}

/** Whether a pattern word matches a token (see conceptMatch.ts for the syntax). */
export function wordMatches(test: WordTest, token: Token): boolean {
  const { value } = test;
  if (test.prefix) return token.text.startsWith(value) || (!test.surfaceOnly && token.lemma.startsWith(value));
  return token.text === value || (!test.surfaceOnly && token.lemma === value);
}

/** Distinct start words by kind; a prefix word such as "vomit*" is looked up by the token's prefixes. */
const startWords = {
  ids: new Map<string, number>(),
  /** Equal to the lemma or the written form. */
  exact: new Map<string, number[]>(),
  /** Equal to the written form. */
  surface: new Map<string, number[]>(),
  /** A prefix of the lemma or the written form. */
  prefix: new Map<string, number[]>(),
  /** A prefix of the written form. */
  surfacePrefix: new Map<string, number[]>(),
  /** The lengths of the prefix words, ascending. */
  prefixLengths: [] as number[],
};

/** The id of a phrase's first word; equal words share one. */
export function startWordId(test: WordTest): number {
  const key = `${test.prefix ? "*" : ""}${test.surfaceOnly ? "=" : ""}${test.value}`;
  const known = startWords.ids.get(key);
  if (known !== undefined) return known;
  const id = startWords.ids.size;
  startWords.ids.set(key, id);
  const byKind = test.prefix
    ? test.surfaceOnly
      ? startWords.surfacePrefix
      : startWords.prefix
    : test.surfaceOnly
      ? startWords.surface
      : startWords.exact;
  byKind.set(test.value, [...(byKind.get(test.value) ?? []), id]);
  if (test.prefix && !startWords.prefixLengths.includes(test.value.length)) {
    startWords.prefixLengths.push(test.value.length);
    startWords.prefixLengths.sort((a, b) => a - b);
  }
  return id;
}

/** For each start word id, the positions of the tokens it matches, in order. */
export interface StartIndex {
  /** Start words known when it was built; a table compiled later makes it stale. */
  known: number;
  positions: (number[] | undefined)[];
  /** The ids with a position, in the order first found. */
  present: number[];
}

const indexes = new WeakMap<ParsedText, StartIndex>();

/** One index per parsed text, shared by every concept table matched against it. */
export function indexTokens(parsed: ParsedText): StartIndex {
  const cached = indexes.get(parsed);
  if (cached && cached.known === startWords.ids.size) return cached;
  const positions: (number[] | undefined)[] = [];
  const present: number[] = [];
  parsed.tokens.forEach((token, i) => {
    const add = (ids: number[] | undefined) => {
      if (!ids) return;
      for (const id of ids) {
        const list = positions[id];
        if (!list) {
          positions[id] = [i];
          present.push(id);
        } else if (list[list.length - 1] !== i) list.push(i);
      }
    };
    const { lemma, text } = token;
    const lemmaToo = lemma !== text;
    add(startWords.exact.get(text));
    if (lemmaToo) add(startWords.exact.get(lemma));
    add(startWords.surface.get(text));
    // Ascending, so the loop stops at the first prefix longer than both forms.
    for (const length of startWords.prefixLengths) {
      if (length > text.length && length > lemma.length) break;
      if (length <= text.length) {
        const head = text.slice(0, length);
        add(startWords.prefix.get(head));
        add(startWords.surfacePrefix.get(head));
      }
      if (lemmaToo && length <= lemma.length) add(startWords.prefix.get(lemma.slice(0, length)));
    }
  });
  const index = { known: startWords.ids.size, positions, present };
  indexes.set(parsed, index);
  return index;
}
