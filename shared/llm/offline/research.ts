/**
 * Whether a message asks for the literature, and on what topic. A search is a request the person
 * makes ("papers on black holes", "any research on X?", "what does the research say about X?",
 * "search for X"), not a word that happens to be in a question ("I'm taking part in a study, is it
 * safe to drink coffee?"), and its query is the topic they named, never the question's other words.
 */
export interface ResearchRequest {
  /** The person asks for papers, studies, research or literature, or to search. */
  asked: boolean;
  /** The words they named as the topic ("neutrino oscillations"); none when they named none. */
  topic?: string;
}

const NOUN = "(?:research|studies|study|papers?|articles?|literature|evidence|trials?|publications?|preprints?)";
/** A literature noun as the thing asked for: after a request verb, or heading the sentence. */
const ASKED_FOR = new RegExp(
  String.raw`\b(?:search|find|show|give|list|get|send|recommend|suggest|want|are there|is there|any)\b[^.?!;]*?\b(${NOUN})\b`,
);
/** A sentence headed by the noun: "latest papers on black holes", "asthma research?". */
const HEADING = new RegExp(String.raw`^\s*((?:[\p{L}\p{N}'-]+\s+){0,3}?)(${NOUN})\b`, "u");
/** Words that make a sentence a question or a statement rather than a noun phrase ("how does a study work"). */
const CLAUSE =
  /^(?:what|how|why|when|where|which|who|whom|whose|is|are|was|were|do|does|did|can|could|should|would|will|may|might|has|have|had|i|i'm|i've|you|we|they|he|she|it|my|your|our|their)$/;
/** "what does the research say about …", "what's the evidence for …". */
const WHAT_SAYS = new RegExp(
  String.raw`\bwhat(?:'s| is| are| does| do| did)\s+(?:the\s+)?(?:(?:latest|recent|current|new|medical|scientific)\s+)?(${NOUN})\b`,
);
/** "what is known about …", "what do we know about …": the state of knowledge, which is the literature. */
const KNOWN =
  /\b(?:what is|what's|what are)\s+(?:known|understood)\b|\bwhat do (?:we|scientists|researchers|doctors) know\b/;
/** "search for X", "search the literature for X". */
const SEARCH = /\bsearch(?:\s+(?:the|our|your)\s+(?:index|papers|literature|database))?(?=\s+(?:for|on|about)\b)/;
/** Before a noun used as a verb or as the person's own ("I study nursing", "to study", "my research"). */
const NOT_ASKED = /\b(?:i|we|you|they|to|my|our|i'm|i've|will|can|should)\s+$/;
const TOPIC = /\b(?:on|about|into|regarding|concerning|for|of|in|that|behind|linking|around|whether)\s+(.+)$/;

/** Sentences, not split inside a number ("7.2"). */
const sentences = (lower: string) => lower.split(/[.?!;]+(?=\s|$)|\n+/).filter((s) => s.trim());

/** The end of the literature noun or search phrase that makes the sentence a request, if any. */
function requestEnd(sentence: string): { at: number; noun?: string } | undefined {
  const known = KNOWN.exec(sentence) ?? SEARCH.exec(sentence);
  if (known) return { at: known.index + known[0].length };
  for (const pattern of [WHAT_SAYS, ASKED_FOR]) {
    const match = pattern.exec(sentence);
    const noun = match?.[1];
    if (!match || !noun) continue;
    const at = match.index + match[0].length;
    if (!NOT_ASKED.test(sentence.slice(0, at - noun.length))) return { at, noun };
  }
  const heading = HEADING.exec(sentence);
  const lead = heading?.[1]?.trim().split(/\s+/).filter(Boolean) ?? [];
  if (!heading?.[2] || lead.some((word) => CLAUSE.test(word))) return undefined;
  return { at: heading.index + heading[0].length, noun: heading[2] };
}

/** The topic of a request sentence: after its preposition ("on black holes"), else the words before the noun. */
function topicOf(sentence: string, end: { at: number; noun?: string }): string | undefined {
  const after = TOPIC.exec(sentence.slice(end.at))?.[1]?.trim();
  if (after) return after;
  if (!end.noun) return undefined;
  const before = sentence.slice(0, end.at - end.noun.length).trim();
  return before || undefined;
}

export function researchRequest(lower: string): ResearchRequest {
  for (const sentence of sentences(lower)) {
    const end = requestEnd(sentence);
    if (end) return { asked: true, topic: topicOf(sentence, end) };
  }
  return { asked: false };
}
