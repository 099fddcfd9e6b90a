import model from "wink-eng-lite-web-model";
import winkNLP, { type ItsFunction } from "wink-nlp";
import { normaliseSpelling } from "./spelling";

/**
 * Sentences, tokens and lemmas from wink-nlp's English lite model (docs/safety.md says why this
 * library). The model loads once per process (about 0.2 s); a message then takes well under a
 * millisecond. wink's own negation flag is not used: it marks "can't breathe" and "won't wake up"
 * as negated, which are symptoms, so negation is decided by ConText (conText.ts) instead.
 */
const nlp = winkNLP(model, ["sbd", "pos", "negation"]);
const its = nlp.its;
// wink's declared type for `its.lemma` does not fit its own `out()` signature; the runtime call is the documented one.
const lemmaOf = its.lemma as unknown as ItsFunction<string>;

export interface Token {
  /** The word as written after spelling normalisation, lowercased. */
  text: string;
  /** wink's lemma, lowercased ("breathing" → "breathe", "mum" → "mom"). */
  lemma: string;
  /** Universal POS tag from wink ("NOUN", "VERB", "NUM", "PUNCT", …). */
  pos: string;
  /** Index of the sentence the token belongs to. */
  sentence: number;
}

export interface ParsedText {
  tokens: Token[];
  /** For each sentence, its first token index and one past its last. */
  sentences: { start: number; end: number }[];
}

/** The message as tokens with lemmas and sentence numbers, after spelling normalisation. */
export function parseText(text: string): ParsedText {
  const doc = nlp.readDoc(normaliseSpelling(text));
  const tokens: Token[] = [];
  const sentences: ParsedText["sentences"] = [];
  doc.sentences().each((sentence, index) => {
    const start = tokens.length;
    const words = sentence.tokens();
    const values = words.out(its.value);
    const lemmas = words.out(lemmaOf);
    const tags = words.out(its.pos);
    values.forEach((value, i) => {
      tokens.push({
        text: value.toLowerCase(),
        lemma: (lemmas[i] ?? value).toLowerCase(),
        pos: tags[i] ?? "X",
        sentence: index,
      });
    });
    sentences.push({ start, end: tokens.length });
  });
  return { tokens, sentences };
}
