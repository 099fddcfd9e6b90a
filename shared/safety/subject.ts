import type { ParsedText, Token } from "./nlp";

/**
 * Who a symptom belongs to: the writer ("self") or someone they are with or caring for ("other":
 * "my dad is having chest pain", "she won't wake up", "45M with chest pain"). ConText calls this
 * the experiencer; a relative's past illness is handled as family history by the ConText rules, so
 * here a relative simply makes the subject "other". The nearest person mentioned before the
 * symptom in its sentence decides; failing that the last one in an earlier sentence; else the writer.
 */
export type Subject = "self" | "other";
/** A pet's symptoms are for a vet, not this triage ("our dog collapsed"). */
type Experiencer = Subject | "animal";
const ANIMALS = new Set(
  "dog dogs puppy cat cats kitten pet pets rabbit hamster horse pony parrot budgie guinea pig tortoise".split(" "),
);

const OTHER_PEOPLE = new Set(
  `mom mum mother mama mommy mummy dad father papa daddy son daughter baby child kid toddler boy girl husband wife
  partner boyfriend girlfriend fiance fiancee brother sister grandma grandmother granny gran nan nana grandad granddad
  grandpa grandfather aunt auntie uncle cousin niece nephew friend flatmate roommate housemate colleague coworker
  neighbour neighbor patient man woman lady guy gentleman someone somebody stranger he she him they them
  newborn infant teenager teen student grandson granddaughter stepson stepdaughter stepdad stepmum stepmom
  people person passenger customer client pupil resident`
    .split(/\s+/)
    .filter(Boolean),
);
/** Possessives that point at another person only when no person noun follows ("her arm"). */
const OTHER_POSSESSIVES = new Set(["his", "her", "their"]);
const SELF = new Set(["i", "me", "myself", "my", "mine"]);

/** Whether the token starts a mention of someone else, and where that mention ends. */
function personAt(tokens: Token[], i: number): Experiencer | undefined {
  const token = tokens[i];
  if (!token) return undefined;
  if (ANIMALS.has(token.lemma) || ANIMALS.has(token.text)) {
    // Only a pet that is the sentence's subject ("our dog collapsed", "my cat is vomiting"); when
    // unsure ("walking the dog and got chest pain") the symptom stays a person's.
    const next = tokens[i + 1];
    return next && (next.pos === "VERB" || next.pos === "AUX") ? "animal" : undefined;
  }
  if (token.text === "my" || token.text === "our") {
    // "my dad", "my 6 week old", "my little girl": look a few words ahead for a person.
    for (let k = i + 1; k <= i + 4 && k < tokens.length; k++) {
      const next = tokens[k];
      if (!next || next.pos === "PUNCT" || next.pos === "VERB" || next.pos === "AUX") break;
      if (OTHER_PEOPLE.has(next.lemma) || OTHER_PEOPLE.has(next.text) || next.text === "old") return "other";
    }
    return token.text === "my" ? "self" : undefined;
  }
  if (OTHER_PEOPLE.has(token.text) || OTHER_PEOPLE.has(token.lemma) || OTHER_POSSESSIVES.has(token.text)) {
    return "other";
  }
  // A clinician's case: "a 45 year old man", "72 year old f".
  if (token.text === "old" && tokens[i - 2]?.pos === "NUM") return "other";
  if (SELF.has(token.text)) return "self";
  return undefined;
}

/** The subject of a concept match that starts at token `start`. */
export function subjectAt(parsed: ParsedText, start: number): Experiencer {
  const { tokens } = parsed;
  const sentence = tokens[start]?.sentence ?? 0;
  // Back through this sentence, then earlier ones, to the last person mentioned.
  for (let i = start - 1; i >= 0; i--) {
    const subject = personAt(tokens, i);
    if (subject) return subject;
  }
  // Nobody before it: someone named later in the same sentence ("is my dad having a stroke?").
  for (let i = start; i < tokens.length && tokens[i]?.sentence === sentence; i++) {
    const subject = personAt(tokens, i);
    if (subject) return subject;
  }
  return "self";
}
