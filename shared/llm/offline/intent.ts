import { askedUnit, type LabIntent, labIntent } from "./labs";
import { type RecordsAsk, recordsAsk } from "./records";
import { researchRequest } from "./research";
import type { AnalyteMention, ConditionMention, SymptomKind, SymptomMention } from "./vocabulary";

/**
 * What a message asks, read by rules: which label section, whether it is about the caller's own
 * medications, logs, lab results, imported records or symptom choices, whether research is wanted,
 * and what to record.
 * Names (medications, conditions, symptoms, lab analytes) come from the vocabularies (vocabulary.ts).
 */
export type LabelTopic = "side-effects" | "dose" | "pregnancy" | "warnings" | "interactions" | "overview";
export type LogIntent = "list" | "progress" | "record";

export interface Observation {
  severity?: number;
  temperature?: number;
  temperatureUnit?: "C" | "F";
}

export interface Question {
  text: string;
  /** Medications to look up (a brand's ingredient), in message order. */
  medications: string[];
  /** The brand written for a looked-up name: {zolpidem: "ambien"}. */
  brands: Record<string, string>;
  conditions: ConditionMention[];
  symptoms: SymptomMention[];
  /** Lab analytes named in the message (not in attachments), in message order. */
  analytes: AnalyteMention[];
  /** "is my HbA1c going down?": the analytes' history; "show my lab results": the panels. */
  labs?: LabIntent;
  /** The unit lab values are asked in ("in mmol/L"). */
  labUnit?: string;
  /** "my profile", "my conditions": the profile itself is asked for. */
  profile: boolean;
  /** "my medications", "I take": the answer needs the profile's medications. */
  myMedications: boolean;
  /** "what am I allergic to?", "when was my last tetanus shot?": what imported records hold (records.ts). */
  records?: RecordsAsk;
  topic: LabelTopic;
  logs?: LogIntent;
  symptomOptions: boolean;
  /** The person asks for papers, studies or research ("papers on X", "search for X"). */
  research: boolean;
  /** The topic they named for it, as written; none when they named none ("show me the latest research"). */
  researchTopic?: string;
  kind: SymptomKind;
  observation: Observation;
}

const TOPICS: [LabelTopic, RegExp][] = [
  ["interactions", /\b(interact\w*|mix\w*|combin\w*|together|along with|at the same time)\b/],
  ["pregnancy", /\b(pregnan\w*|breast-?feed\w*|nursing|trimester|expecting a baby)\b/],
  ["side-effects", /\b(side[- ]?effects?|adverse|reactions?|cause[sd]?|causing|make[s]? me|giv(?:e|es|ing) me)\b/],
  ["dose", /\b(doses?|dosage|dosing|how (?:much|many|often)|maximum|max|mg)\b/],
  ["warnings", /\b(warnings?|safe(?:ly|ty)?|dangers?|dangerous|risks?|contraindicat\w*|avoid|precautions?|overdose)\b/],
];

const MY_MEDICATIONS =
  /\b(my (?:current )?(?:medications?|medicines?|meds|pills|drugs|prescriptions?|tablets)|i(?:'m| am)? (?:take|taking|on))\b/;
const PROFILE = /\bmy\b[^.?!]*\b(profile|conditions|diagnos[ie]s|medications|meds|medicines)\b/;
const LOG_LIST = /\b(my\b[^.?!]*\b(logs?|trackers?|diary|entries)|health logs?)\b/;
const LOG_PROGRESS =
  /\b(how (?:is|are) my\b[^.?!]*\b(?:log|diary|tracker|tracking|symptoms?|severity)|(?:getting|got) (?:better|worse)|improv\w*|trend\w*|progress\w*|summar(?:y|ize|ise)\b[^.?!]*\b(?:log|symptoms?|entries|diary)|for my doctor|my severity)\b/;
const RECORD_VERB = /\b(record|log|add|note|enter|jot|write down|save)\b/;
const SYMPTOM_OPTIONS =
  /\b(symptom (?:options|list|choices)|what symptoms\b[^.?!]*\b(?:track|log|record|monitor|watch)|symptoms? (?:to|should i) (?:track|log|record|monitor|watch))\b/;
const PREGNANCY = /\b(pregnan\w*|baby is due|weeks? pregnant|trimester|fetal|foetal|labou?r|midwife)\b/;

export function labelTopic(lower: string): LabelTopic {
  return TOPICS.find(([, pattern]) => pattern.test(lower))?.[0] ?? "overview";
}

function logIntent(lower: string, observation: Observation, symptoms: SymptomMention[]): LogIntent | undefined {
  const observed = observation.severity !== undefined || observation.temperature !== undefined || symptoms.length > 0;
  if (RECORD_VERB.test(lower) && observed && !/^\s*(what|which|how|should)\b/.test(lower)) return "record";
  if (LOG_PROGRESS.test(lower)) return "progress";
  if (LOG_LIST.test(lower)) return "list";
  return undefined;
}

/** Severity 0–10 and a temperature with its unit, as written in the message. */
export function observationOf(lower: string): Observation {
  const out: Observation = {};
  const severity = /\bseverity\D{0,12}?(\d{1,2})\b|\b(\d{1,2})\s*(?:\/|out of)\s*10\b/.exec(lower);
  const value = Number(severity?.[1] ?? severity?.[2]);
  if (severity && value >= 0 && value <= 10) out.severity = value;
  const temperature =
    /(\d{2,3}(?:[.,]\d)?)\s*°?\s*(c|f|celsius|fahrenheit)\b/.exec(lower) ??
    /\b(?:temperature|fever|temp)\b\D{0,12}?(\d{2,3}(?:[.,]\d)?)/.exec(lower);
  if (temperature) {
    const degrees = Number((temperature[1] as string).replace(",", "."));
    const unit = temperature[2]?.startsWith("f") || degrees >= 80 ? "F" : "C";
    if ((unit === "C" && degrees >= 30 && degrees <= 45) || (unit === "F" && degrees >= 86 && degrees <= 113)) {
      out.temperature = degrees;
      out.temperatureUnit = unit;
    }
  }
  return out;
}

type Found = Pick<Question, "medications" | "brands" | "conditions" | "symptoms"> & { analytes?: AnalyteMention[] };

/** Words that keep a log or research reading of a lab question ("trend" alone is about the labs). */
const LOG_WORDS = /\b(logs?|diary|tracker|symptoms?|severity|entries)\b/;
const RESEARCH_WORDS = /\b(research|studies|study|papers?|evidence|literature|trials?)\b/;

export function analyze(text: string, found: Found): Question {
  const lower = text.toLowerCase();
  const observation = observationOf(lower);
  const analytes = found.analytes ?? [];
  const labs = labIntent(lower, analytes, found.medications);
  const labsOnly = (reading: boolean, words: RegExp) => reading && (!labs || words.test(lower));
  const logs = logIntent(lower, observation, found.symptoms);
  const research = researchRequest(lower);
  const asked = labsOnly(research.asked, RESEARCH_WORDS);
  return {
    text,
    ...found,
    analytes,
    labs,
    labUnit: labs === "history" ? askedUnit(text) : undefined,
    profile: PROFILE.test(lower),
    myMedications: MY_MEDICATIONS.test(lower),
    records: recordsAsk(
      text,
      found.medications.map((name) => found.brands[name] ?? name),
    ),
    topic: labelTopic(lower),
    logs: labsOnly(logs !== undefined, LOG_WORDS) ? logs : undefined,
    symptomOptions: SYMPTOM_OPTIONS.test(lower),
    research: asked,
    researchTopic: asked ? research.topic : undefined,
    kind: PREGNANCY.test(lower) ? "pregnancy" : "acute",
    observation,
  };
}
