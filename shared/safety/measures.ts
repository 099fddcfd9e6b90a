import type { ParsedText, Token } from "./nlp";

/**
 * Numbers that change a triage threshold, read from the tokens: body temperatures (°C, or °F
 * converted), durations ("for 10 minutes", "over 5 min", "since yesterday", "for weeks"), ages
 * ("6 week old", "my 3 month old", "toddler", "72 year old", "aged 72") and weeks of pregnancy.
 */
export interface Measures {
  /** Highest body temperature mentioned, in °C. */
  temperatureC?: number;
  /** Durations in minutes, with the token they were read at (rules compare them to a symptom's sentence). */
  durations: { minutes: number; at: number; sentence: number }[];
  /** Age in years of someone the message is about (the youngest mentioned), if stated. */
  ageYears?: number;
  /** "baby", "infant": a baby whose age in months is not given. */
  babyOfUnknownAge: boolean;
  /** Weeks of pregnancy, if stated ("32 weeks pregnant"). */
  gestationWeeks?: number;
  /** Oxygen saturation in %, if stated ("sats 88%"). */
  oxygenPercent?: number;
  /** Blood glucose in mmol/L (mg/dL converted), if stated. */
  glucoseMmol?: number;
  /** Blood ketones in mmol/L, if stated. */
  ketonesMmol?: number;
  /** The largest number of pills or tablets said to have been taken ("took 20 paracetamol"). */
  pillCount?: number;
}

/** A number within a few tokens after a cue word ("sats were 88", "sugar is 2.8", "ketones 3.4"). */
function numberAfterCue(tokens: Token[], i: number, cues: RegExp, gap = 4): number | undefined {
  if (!cues.test(tokens[i]?.lemma ?? "")) return undefined;
  for (let k = i + 1; k <= i + gap && k < tokens.length; k++) {
    const token = tokens[k];
    if (!token || token.sentence !== tokens[i]?.sentence) return undefined;
    if (token.pos === "NUM" && /^\d+(\.\d+)?$/.test(token.text)) return Number(token.text);
  }
  return undefined;
}

const PILL_WORDS =
  /^(pill|tablet|capsule|paracetamol|acetaminophen|tylenol|ibuprofen|aspirin|co-codamol|codeine|tramadol|sleeping|diazepam|sertraline|citalopram|antidepressant|painkiller)s?$/;

/** "took 20 paracetamol", "swallowed 16 of my sleeping tablets". */
function readPillCount(tokens: Token[], i: number): number | undefined {
  const amount = numberAt(tokens[i]);
  if (amount === undefined || tokens[i]?.pos !== "NUM") return undefined;
  for (let k = i + 1; k <= i + 4 && k < tokens.length; k++) {
    if (PILL_WORDS.test(tokens[k]?.text ?? "")) return amount;
  }
  return undefined;
}

function readVitals(tokens: Token[], i: number, measures: Measures) {
  const oxygen = numberAfterCue(tokens, i, /^(sats|saturation|saturations|spo2|o2|oxygen)$/);
  if (oxygen !== undefined && oxygen >= 50 && oxygen <= 100) measures.oxygenPercent = oxygen;
  const glucose = numberAfterCue(tokens, i, /^(sugar|sugars|glucose|bm)$/);
  if (glucose !== undefined && glucose > 0) measures.glucoseMmol = glucose > 40 ? glucose / 18 : glucose;
  const ketones = numberAfterCue(tokens, i, /^ketones?$/);
  if (ketones !== undefined && ketones < 15) measures.ketonesMmol = ketones;
  const pills = readPillCount(tokens, i);
  if (pills !== undefined) measures.pillCount = Math.max(measures.pillCount ?? 0, pills);
}

const NUMBER_WORDS: Record<string, number> = {
  a: 1,
  an: 1,
  one: 1,
  two: 2,
  three: 3,
  four: 4,
  five: 5,
  six: 6,
  seven: 7,
  eight: 8,
  nine: 9,
  ten: 10,
  eleven: 11,
  twelve: 12,
  fifteen: 15,
  twenty: 20,
  thirty: 30,
  few: 3,
  couple: 2,
  several: 4,
};
const UNIT_MINUTES: Record<string, number> = {
  second: 1 / 60,
  minute: 1,
  hour: 60,
  day: 1440,
  night: 1440,
  week: 10080,
  month: 43200,
  year: 525600,
};
/** Durations said without a number: "for weeks", "all day", "since yesterday". */
const VAGUE_DURATIONS: [string[], number][] = [
  [["for", "ages"], 3 * 10080],
  [["for", "weeks"], 2 * 10080],
  [["for", "months"], 2 * 43200],
  [["for", "years"], 525600],
  [["for", "days"], 3 * 1440],
  [["all", "day"], 720],
  [["all", "night"], 480],
  [["since", "yesterday"], 1440],
  [["since", "last", "week"], 10080],
  [["since", "last", "month"], 43200],
  [["since", "this", "morning"], 360],
  [["since", "last", "night"], 720],
  [["last", "month"], 43200],
  [["past", "month"], 43200],
  [["last", "few", "weeks"], 3 * 10080],
  [["past", "few", "weeks"], 3 * 10080],
  [["last", "few", "months"], 3 * 43200],
  [["past", "few", "months"], 3 * 43200],
];
const TEMPERATURE_CUES = new Set([
  "temperature",
  "fever",
  "febrile",
  "pyrexia",
  "pyrexial",
  "thermometer",
  "reading",
  "armpit",
  "axillary",
  "tympanic",
]);
const AGE_WORDS: Record<string, number> = {
  newborn: 0.02,
  neonate: 0.02,
  toddler: 2,
  preschooler: 4,
  teenager: 15,
  teen: 15,
  elderly: 80,
};

function numberAt(token: Token | undefined): number | undefined {
  if (!token) return undefined;
  if (token.pos === "NUM" && /^\d+(\.\d+)?$/.test(token.text)) return Number(token.text);
  return NUMBER_WORDS[token.text];
}

const unitOf = (token: Token | undefined) => (token ? UNIT_MINUTES[token.lemma.replace(/s$/, "")] : undefined);

function readTemperature(tokens: Token[], i: number): number | undefined {
  const value = numberAt(tokens[i]);
  const token = tokens[i];
  if (value === undefined || token?.pos !== "NUM") return undefined;
  const next = tokens[i + 1]?.text;
  const unitAfter = next === "degrees" || next === "°" || next === "celsius" || next === "fahrenheit";
  const cueBefore = tokens.slice(Math.max(0, i - 4), i).some((t) => TEMPERATURE_CUES.has(t.lemma));
  // "38.3 on the thermometer": a body-temperature number with the cue after it.
  const cueAfter =
    value >= 35 &&
    value <= 42.5 &&
    tokens.slice(i + 1, i + 5).some((t, k, after) => {
      if (t.sentence !== token.sentence) return false;
      return (
        TEMPERATURE_CUES.has(t.lemma) || (t.text === "under" && ["arm", "tongue"].includes(after[k + 2]?.text ?? ""))
      );
    });
  if (!unitAfter && !cueBefore && !cueAfter) return undefined;
  const fahrenheit = next === "fahrenheit" || (unitAfter && tokens[i + 2]?.text === "f") || value >= 95;
  const celsius = fahrenheit ? ((value - 32) * 5) / 9 : value;
  return celsius >= 34 && celsius <= 44 ? Math.round(celsius * 10) / 10 : undefined;
}

function readDuration(tokens: Token[], i: number): number | undefined {
  const amount = numberAt(tokens[i]);
  if (amount === undefined) return undefined;
  // "a few minutes", "a couple of hours": skip the filler to the unit.
  let k = i + 1;
  if (tokens[k]?.text === "few" || tokens[k]?.text === "couple") k++;
  if (tokens[k]?.text === "of") k++;
  const unit = unitOf(tokens[k]);
  if (unit === undefined) return undefined;
  const after = tokens[k + 1]?.text;
  if (after === "old" || after === "pregnant" || after === "along" || after === "gestation") return undefined;
  const count = tokens[i + 1]?.text === "few" ? 3 : tokens[i + 1]?.text === "couple" ? 2 : amount;
  return count * unit;
}

function readAge(tokens: Token[], i: number): number | undefined {
  const word = AGE_WORDS[tokens[i]?.lemma ?? ""];
  if (word !== undefined) return word;
  const amount = numberAt(tokens[i]);
  if (amount === undefined || tokens[i]?.pos !== "NUM") return undefined;
  const unit = tokens[i + 1]?.lemma.replace(/s$/, "");
  if (tokens[i + 2]?.text === "old" && unit && ["day", "week", "month", "year"].includes(unit)) {
    return (amount * (UNIT_MINUTES[unit] ?? 0)) / UNIT_MINUTES.year!;
  }
  const before = tokens[i - 1]?.text;
  if ((before === "aged" || before === "age") && amount < 120) return amount;
  return undefined;
}

function readGestation(tokens: Token[], i: number): number | undefined {
  const amount = numberAt(tokens[i]);
  if (amount === undefined || !/^weeks?$/.test(tokens[i + 1]?.text ?? "")) return undefined;
  const after = tokens[i + 2]?.text;
  if (after === "pregnant" || after === "along" || after === "gestation") return amount;
  if (amount < 4 || amount > 42 || ["ago", "old", "since", "after", "later", "post"].includes(after ?? ""))
    return undefined;
  // "I'm 38 weeks", "she is 34 weeks", "only 33 weeks": said of a person, a number of weeks is a pregnancy's;
  // so is a message that opens with one ("34 weeks, pounding head…").
  const before = tokens[i - 1];
  const saidOfPerson =
    before?.lemma === "be" && ["i", "she", "wife", "partner", "we"].includes(tokens[i - 2]?.text ?? "");
  const opening = i === 0 && (after === undefined || after === "," || after === "and" || after === "now");
  return saidOfPerson || before?.text === "only" || opening ? amount : undefined;
}

/** The temperatures, durations, ages and weeks of pregnancy in a parsed message. */
export function readMeasures(parsed: ParsedText): Measures {
  const { tokens } = parsed;
  const measures: Measures = { durations: [], babyOfUnknownAge: false };
  const ages: number[] = [];
  tokens.forEach((token, i) => {
    const temperature = readTemperature(tokens, i);
    if (temperature !== undefined) measures.temperatureC = Math.max(measures.temperatureC ?? 0, temperature);
    const minutes = readDuration(tokens, i);
    if (minutes !== undefined) measures.durations.push({ minutes, at: i, sentence: token.sentence });
    const age = readAge(tokens, i);
    if (age !== undefined) ages.push(age);
    const weeks = readGestation(tokens, i);
    if (weeks !== undefined) measures.gestationWeeks = weeks;
    for (const [words, vague] of VAGUE_DURATIONS) {
      if (words.every((word, k) => tokens[i + k]?.text === word)) {
        measures.durations.push({ minutes: vague, at: i, sentence: token.sentence });
      }
    }
    if (token.lemma === "baby" || token.lemma === "infant") measures.babyOfUnknownAge = true;
    readVitals(tokens, i, measures);
  });
  if (ages.length > 0) measures.ageYears = Math.min(...ages);
  if (measures.ageYears !== undefined) measures.babyOfUnknownAge = false;
  return measures;
}
