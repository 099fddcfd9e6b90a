/**
 * ConText trigger phrases (Chapman, Chu & Dowling 2007; Harkema et al., J Biomed Inform 2009).
 *
 * Provenance: the clinical triggers marked "medspaCy" are a subset ported from medspaCy's
 * `resources/en/context_rules.json` (MIT licence, github.com/medspacy/medspacy), rewritten into
 * this file's pattern syntax. The everyday triggers (plain-language negation, resolved history,
 * family history, hypotheticals, information requests) are ours: the chat reads lay messages, not
 * clinical notes, and medspaCy has no rule for "what are the signs of" or "find papers about".
 *
 * Pattern syntax is conceptMatch.ts's, each pattern one phrase (alternatives with "|").
 */
export type ContextCategory =
  | "NEGATED"
  | "HISTORICAL"
  | "HYPOTHETICAL"
  | "FAMILY_HISTORY"
  | "TOPIC"
  | "FICTION"
  | "PSEUDO"
  | "TERMINATE";
export type Direction = "FORWARD" | "BACKWARD" | "BIDIRECTIONAL" | "NONE";

export interface ContextRule {
  category: ContextCategory;
  direction: Direction;
  /** Largest scope in tokens; the sentence and terminators bound it too. */
  scope: number;
  patterns: string[];
}

const SENTENCE = 40;

export const CONTEXT_RULES: ContextRule[] = [
  // medspaCy: NEGATED_EXISTENCE, forward.
  {
    category: "NEGATED",
    direction: "FORWARD",
    scope: 12,
    patterns: [
      "absence of",
      "free of|clear of|lack of|lacked|lacking",
      "deny|denies|denied|denying|decline|declines|declined",
      "negative for|neg for",
      "never had|never developed|never",
      "no|with no|without|not any|none of",
      "no evidence of|no sign of|no signs of|no history of|without any sign of",
      "not associated with|not complain of|not known to have",
      "rule out|ruled out|to exclude|rather than",
      "not have any|have not get|have not had|not got",
    ],
  },
  // medspaCy: NEGATED_EXISTENCE, backward ("…has been ruled out", "…now resolved"), plus lay wording.
  {
    category: "NEGATED",
    direction: "BACKWARD",
    scope: 8,
    patterns: [
      "be ruled out|has been ruled out|was negative|has been negative|unlikely|now resolved|no longer present",
      "be not identified|not seen",
      "went away|gone away|cleared up|settled down",
    ],
  },
  // A bare "not" is everywhere in lay text, so it reaches only a few words.
  {
    category: "NEGATED",
    direction: "FORWARD",
    scope: 5,
    patterns: ["not|not have|not had|not feel|not see|not appear", "no longer|not anymore"],
  },
  // medspaCy: HISTORICAL ("history", "h/o", "past medical history"), plus lay time expressions.
  {
    category: "HISTORICAL",
    direction: "BIDIRECTIONAL",
    scope: SENTENCE,
    patterns: [
      "last year|last month|last week|years ago|year ago|many months ago|months ago|decade ago|long time ago|while back|while ago",
      "last winter|last summer|last spring|last autumn|last fall|last christmas",
      "as a child|as a kid|as a teenager|as a baby|in my childhood|when i be young|when i be little|when i be a kid",
      "used to|in the past|previously|previous|prior|once had|years back|back in",
      "turn out|turned out|turn out to be|was diagnosed|be diagnosed years",
      "in 198*|in 199*|in 200*|in 201*|in 202*",
    ],
  },
  // medspaCy keeps "history of" forward-only: "chest pain, history of diabetes" is still chest pain now.
  {
    category: "HISTORICAL",
    direction: "FORWARD",
    scope: 12,
    patterns: ["history of|past history|past medical history|medical history|hx of|h/o"],
  },
  // Family history: a relative's past illness or death is not a present emergency.
  {
    category: "FAMILY_HISTORY",
    direction: "BIDIRECTIONAL",
    scope: SENTENCE,
    patterns: [
      "family history|fh of|run in the family|run in my family|run in our family",
      "die of|die from|died of|died from|die after|pass away|passed away|lose * to|my late|her late|his late",
      "hereditary|genetic|inherit|inherited",
    ],
  },
  // medspaCy: HYPOTHETICAL ("if", "should he", "should there", "risk of"), plus lay wording.
  {
    category: "HYPOTHETICAL",
    direction: "FORWARD",
    scope: 12,
    patterns: [
      "if|in case|what if|should there|should he|should she|should they|if ever|next time",
      "risk of|risks of|at risk|chance of|chances of|likely to get|prevent|prevention|avoid|reduce",
      "how do i know|how would i know|how can i tell|how to tell|how do you know|when should i worry",
      "suppose|imagine|hypothetically|let us say|say someone",
      "afraid|scared|terrified|worried|frightened|fear|anxious & of|about ~0",
      "could cause|can cause|might cause|may cause",
      "would it|would i|would you|could i get|can you get|can i get|can someone get|can it cause|can * cause|could * cause",
    ],
  },
  // Requests for information or research: the concept is a topic, not a report.
  {
    category: "TOPIC",
    direction: "FORWARD",
    scope: SENTENCE,
    patterns: [
      "what be|what do|what does|what is|what are|what cause|what causes",
      "what & be|do|does ~2",
      "how often|how long|how much|how many|is it safe|is it ok",
      "when should i|when should you|what situations|when to|when do i need to|when do you need to",
      "can i take|should i take|can you take|what can i take|what should i take|can i use|can i give",
      "is|are|does|do|can & always|usually|normally|ever ~2",
      "sign of|signs of|symptom of|symptoms of|cause of|causes of|treatment for|treatment of|treatments for",
      "dose of|dosage|dose for|side effect|side effects",
      "paper|papers|study|studies|research|article|articles|literature|evidence|trial|trials|review|guideline|guidelines",
      "find paper|find papers|find study|find studies|find research|find article|find articles|find me|find information|find out about",
      "search|search for|look up|show me|summarise|summarize|tell me about|explain|define|definition|meaning of",
      "difference between|how common|statistics|prevalence|mechanism|pathophysiology",
      "essay|exam|homework|lecture|course|class|quiz|learn about|learning about|teach",
      "how do i|how can i|how to|how should i|tips|any tips|advice on|best way to|best way of",
    ],
  },
  // Stories, television and the news: what happens to a character or a stranger in a report (ours).
  {
    category: "FICTION",
    direction: "FORWARD",
    scope: SENTENCE,
    patterns: [
      "on the news|in the news|news report|in a documentary",
      "in a film|in the film|in a movie|in the movie|in a book|in the book|in a novel|in the novel|in my novel",
      "in a story|a story where|a story about|write a story|write me a story|in the show|on the show|in the episode|in the series|in the play|in a game|in the game",
      "main character|the character|a character|my character|a scene where",
    ],
  },
  // medspaCy PSEUDO-like: phrases that contain a trigger word but do not act as one.
  {
    category: "PSEUDO",
    direction: "NONE",
    scope: 0,
    patterns: [
      "no idea|no clue|no matter|no doubt|no one|no way|not only|not just|not sure|not even",
      "do not know if|do not know whether|not sure if|not sure whether|wonder if|wondering if|as if|see if|check if",
      "not get better|not getting better|not improve|not improving|not go away|not going away|not go down|not settle",
      "not help|not helping|not work|not working|not stop|not stopping|not ease|not easing|not budge",
      "can not sleep|can not wait|can not remember|can not tell|can not believe|can not cope",
      "what should i do|what do i do|what can i do|what to do",
      "afraid|scared|terrified|worried|frightened|anxious|concerned & of|about & my|his|her|this|these|the|our|it ~0",
      "never & like this|this bad|this before|so bad|before ~7",
      "since last week|since last month|since last year|for the last|over the last|in the last|the last few|the past",
      "day|days|week|weeks|month|months|hour|hours|year|years & history ~0",
      "usually he|usually she|usually it|usually they|usually i|usually we|normally he|normally she|normally it|normally i",
      "not & service|serviced|check|checked|test|tested ~3",
      "not answer|not answering|not reply|not replying|not pick up|not picking up",
    ],
  },
  // medspaCy TERMINATE ("but", "however", "although", "apart from", "aside from", "secondary to", "because").
  {
    category: "TERMINATE",
    direction: "NONE",
    scope: 0,
    patterns: [
      "but|however|nevertheless|except|though|although|yet|whereas|apart from|aside from|other than|just|only",
      "secondary to|because|cause for|source of|consistent with",
      "and i|and my|and he|and she|and now|and today|and they|and it|so i|then i|, i|, my|, he|, she|, it|which|, which",
    ],
  },
];

/**
 * Words that end only some scopes: present-time words end a historical scope ("had a stroke last
 * year and now her face droops"); a comma ends a conditional or question ("if it gets worse, …").
 */
export const CATEGORY_TERMINATORS: Partial<Record<ContextCategory, string[]>> = {
  HISTORICAL: ["now|today|tonight|currently|again|right now|at the moment|this morning|this evening|since|still"],
  HYPOTHETICAL: [",|?|;"],
  TOPIC: [",|?|;"],
  FAMILY_HISTORY: ["now|today|tonight|currently|right now|at the moment|this morning"],
  // "I was in the play when I collapsed": the story ends where the writer's own time begins.
  FICTION: ["when|while|now|today|tonight|suddenly|then"],
};
