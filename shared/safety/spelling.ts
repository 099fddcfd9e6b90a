/**
 * Everyday spelling, texting and clinical shorthand rewritten to the words the concepts are written
 * in, before the NLP library sees the text. People in distress type fast: "cant breath", "realy",
 * "siezure", "45M c/o CP". Each rule is a whole-word regular expression over lowercased text, except
 * the case-sensitive clinical abbreviations, which run first on the original text (so "SOB" is
 * shortness of breath but "sob" stays a sob).
 */

const CLINICAL_ABBREVIATIONS: [RegExp, string][] = [
  [/\bSOB(OE)?\b/g, "short of breath"],
  [/\bDIB\b/g, "difficulty breathing"],
  [/\bCP\b/g, "chest pain"],
  [/\bLOC\b/g, "loss of consciousness"],
  [/\bN\/V\b/g, "nausea and vomiting"],
  [/\bGCS\b/g, "consciousness score"],
  [/\bPR bleed(ing)?\b/g, "rectal bleeding"],
  [/\bUTI\b/g, "urine infection"],
  [/\bDKA\b/g, "diabetic ketoacidosis"],
  [/\bCO\b(?= (?:alarm|detector|poisoning|leak))/g, "carbon monoxide"],
  [/\bT ?(3[4-9]|4[0-2])(\.\d)?\b/g, "temperature $1$2"],
  [/\bRIF\b/g, "right iliac fossa"],
  [/\bLIF\b/g, "left iliac fossa"],
  [/\bPV\b/g, "vaginal"],
  // "45M", "72 F", "3yo F": an age with the sex after it.
  [/\b(\d{1,2}) ?(?:yo|y\/o|y\.o\.)? ?([MF])\b/g, "$1 year old $2"],
];

/** Apostrophes and contractions expanded, so "can't", "cant" and "cannot" all become "can not". */
const CONTRACTIONS: [RegExp, string][] = [
  [/[\u2018\u2019\u02bc`´]/g, "'"],
  [/\b(can|cann)'?t\b|\bcannot\b/g, "can not"],
  [/\bwo'?nt\b/g, "will not"],
  [/\bshan'?t\b/g, "shall not"],
  [/\b(do|does|did|is|was|are|were|has|have|had|could|would|should|must|need|ai)n'?t\b/g, "$1 not"],
  [/\bi'?m\b/g, "i am"],
  [/\bi'?ve\b/g, "i have"],
  [/\b(you|we|they|who)'re\b/g, "$1 are"],
  [/\b(i|you|we|they|he|she|it)'ll\b/g, "$1 will"],
  [/\b(i|you|we|they|he|she)'d\b/g, "$1 would"],
  [/\b(he|she|it|that|there|what)'s\b/g, "$1 is"],
  [/\b(you|we|they)'ve\b/g, "$1 have"],
  [/\bcant\b/g, "can not"],
  [/\bim\b/g, "i am"],
  [/\bive\b/g, "i have"],
];

/** Misspellings and short forms seen in everyday messages, to the spelling the concepts use. */
const WORDS: Record<string, string> = {
  realy: "really",
  rly: "really",
  alot: "a lot",
  breath: "breathe",
  breth: "breathe",
  breating: "breathing",
  breahting: "breathing",
  brething: "breathing",
  breathin: "breathing",
  feaver: "fever",
  fevor: "fever",
  fevr: "fever",
  temprature: "temperature",
  tempreture: "temperature",
  temperture: "temperature",
  tempature: "temperature",
  temp: "temperature",
  siezure: "seizure",
  siezures: "seizures",
  seizur: "seizure",
  sezure: "seizure",
  unconcious: "unconscious",
  unconsious: "unconscious",
  vomitting: "vomiting",
  vommiting: "vomiting",
  vomitted: "vomited",
  puking: "vomiting",
  puked: "vomited",
  diarrea: "diarrhoea",
  diarhea: "diarrhoea",
  diarrhea: "diarrhoea",
  stomache: "stomach ache",
  tummyache: "tummy ache",
  headach: "headache",
  hedache: "headache",
  chestpain: "chest pain",
  pregant: "pregnant",
  pregnat: "pregnant",
  pregnent: "pregnant",
  preganant: "pregnant",
  pregnet: "pregnant",
  pragnant: "pregnant",
  swalowed: "swallowed",
  swallowd: "swallowed",
  swolled: "swallowed",
  preggers: "pregnant",
  preggo: "pregnant",
  nausious: "nauseous",
  nauseus: "nauseous",
  dizzie: "dizzy",
  dizy: "dizzy",
  swolen: "swollen",
  swollan: "swollen",
  bleding: "bleeding",
  bleedin: "bleeding",
  poision: "poison",
  posion: "poison",
  pils: "pills",
  tabs: "tablets",
  paracetemol: "paracetamol",
  paracetmol: "paracetamol",
  suicidle: "suicidal",
  sucidal: "suicidal",
  collasped: "collapsed",
  colapsed: "collapsed",
  strok: "stroke",
  hrs: "hours",
  hr: "hour",
  mins: "minutes",
  min: "minutes",
  secs: "seconds",
  wks: "weeks",
  wk: "week",
  yrs: "years",
  yr: "year",
  yo: "year old",
  mths: "months",
  mnths: "months",
  bub: "baby",
  scaled: "scalded",
  scolded: "scalded",
  coryza: "runny nose",
  lil: "little",
  u: "you",
  ur: "your",
  pls: "please",
  plz: "please",
  rn: "right now",
  w: "with",
  abd: "abdominal",
  pt: "patient",
  hx: "history",
  "h/o": "history of",
  "c/o": "complains of",
  "w/": "with",
  stiffneck: "stiff neck",
};

const WORD_PATTERN = new RegExp(
  `(?<![\\w/])(${Object.keys(WORDS)
    .map((word) => word.replace(/[/]/g, "\\/"))
    .join("|")})(?![\\w/])`,
  "g",
);

/** The message rewritten for the tokenizer: lowercased, contractions expanded, common typos fixed. */
export function normaliseSpelling(text: string): string {
  let out = text;
  // A Glasgow Coma Scale under 15 or a breathing rate of 25 or more are the signs themselves (NICE NG51).
  out = out.replace(/\bGCS:? ?(\d{1,2})(?:\/15)?\b/g, (_, n) => (Number(n) < 15 ? "reduced consciousness" : "alert"));
  out = out.replace(/\bRR:? ?(\d{1,2})\b/g, (_, n) =>
    Number(n) >= 25 ? "breathing very fast" : `respiratory rate ${n}`,
  );
  for (const [pattern, replacement] of CLINICAL_ABBREVIATIONS) out = out.replace(pattern, replacement);
  out = out.toLowerCase();
  for (const [pattern, replacement] of CONTRACTIONS) out = out.replace(pattern, replacement);
  out = out.replace(/\b(\d{1,3}) ?(?:yo|y\/o|y\.o\.)(?![a-z])/g, "$1 year old");
  // Obstetric shorthand: "7/40" is seven weeks of a 40-week pregnancy.
  out = out.replace(/\b([1-4]?\d)\+?\d?\/40\b/g, "$1 weeks pregnant");
  // "3/12 old" is three months old, "2/7" two days, "3/52" three weeks.
  out = out.replace(/\b(\d{1,2})\/12(?![\d/])/g, "$1 months");
  out = out.replace(/\b(\d)\/7(?![\d/])/g, "$1 days");
  out = out.replace(/\b(\d{1,2})\/52(?![\d/])/g, "$1 weeks");
  out = out.replace(WORD_PATTERN, (word) => WORDS[word] ?? word);
  // "38,5" is a European decimal, "39c"/"102f"/"39°c" a temperature: split the unit off the number.
  out = out.replace(/\b(3\d|4[0-2]),(\d)\b/g, "$1.$2");
  out = out.replace(/\b(\d{2,3}(?:\.\d)?) ?°? ?(c|f)\b/g, "$1 degrees $2");
  // "self-harming", "6-week-old", "light-headed": hyphenated words as separate words, as the concepts write them.
  out = out.replace(/\bepi-?pen\b/g, "epipen");
  out = out.replace(/([a-z0-9])-(?=[a-z0-9])/g, "$1 ");
  return out.replace(/\s+/g, " ").trim();
}
