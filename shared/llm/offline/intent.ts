/**
 * How the offline model picks a tool: plain rules over the last user message, in this order —
 * the caller's own profile or logs; symptom options; a medication (a known name or a drug-like
 * word next to words such as "side effects" or "dose"); a condition (a known name or a
 * disease-like word); otherwise a literature search with the message's keywords.
 */

const STOPWORDS = new Set(
  `a about after again all am an and any are as at be been before being but by can could did do does doing
  for from had has have having he her here his how i if in into is it its just me more most my no nor not
  of off on once only or other our out over own same she should so some such than that the their them then
  there these they this those through to too under until up very was we were what when where which while who
  whom why will with would you your yours please tell explain know want need find show give latest recent
  research paper papers study studies literature evidence new any there`.split(/\s+/),
);

const MEDICATION_WORDS =
  /\b(medications?|medicines?|drugs?|pills?|tablets?|capsules?|doses?|dosage|side[- ]effects?|label|warnings?|interactions?|prescribed|taking|mg)\b/i;
const KNOWN_DRUGS =
  /\b(aspirin|ibuprofen|paracetamol|acetaminophen|naproxen|metformin|insulin|lisinopril|amlodipine|atorvastatin|simvastatin|omeprazole|levothyroxine|sertraline|fluoxetine|amoxicillin|azithromycin|prednisone|warfarin|zolpidem|ambien|humira|adalimumab|phenylephrine|sudafed|vyvanse|lisdexamfetamine|cetirizine|loratadine|salbutamol|albuterol|montelukast|gabapentin|tramadol|codeine|morphine|diazepam|lorazepam|clopidogrel|apixaban|rivaroxaban|semaglutide|ozempic)\b/i;
const DRUG_SUFFIX =
  /\b\w+(pril|sartan|olol|statin|mab|cillin|mycin|azole|prazole|dipine|oxetine|triptan|tidine|profen|floxacin|cycline|parin|xaban|gliptin|glutide|vir|semide|thiazide)\b/i;
const KNOWN_CONDITIONS =
  /\b(asthma|diabetes|migraine|influenza|flu|covid(-19)?|hypertension|depression|anxiety|eczema|psoriasis|epilepsy|obesity|anemia|anaemia|pneumonia|bronchitis|cancer|leukemia|lymphoma|alzheimer'?s?|parkinson'?s?|dementia|lupus|gout|sepsis|measles|malaria|tuberculosis|endometriosis|preeclampsia|pre-eclampsia)\b/i;
const CONDITION_SUFFIX = /\b\w+(itis|osis|emia|aemia|pathy|oma|algia|plegia|trophy)\b/i;
const CONDITION_WORDS = /\b(syndrome|disease|disorder|condition|infection|deficiency)\b/i;

export interface ToolChoice {
  toolName: string;
  input: Record<string, unknown>;
}

export function keywords(text: string, max = 6): string[] {
  const words = text.toLowerCase().match(/[\p{L}\p{N}][\p{L}\p{N}'-]*/gu) ?? [];
  return [...new Set(words.filter((word) => word.length > 2 && !STOPWORDS.has(word)))].slice(0, max);
}

/** The words around a matched term: "Crohn's disease" → "crohn's disease". */
function phraseAround(text: string, match: RegExpExecArray): string {
  const before = text.slice(0, match.index).match(/([\p{L}'-]+)\s*$/u)?.[1];
  const word = match[0];
  if (CONDITION_WORDS.test(word) && before && !STOPWORDS.has(before.toLowerCase())) return `${before} ${word}`;
  return word;
}

export function chooseTool(text: string, available: Set<string>): ToolChoice | undefined {
  const has = (name: string) => available.has(name);
  const lower = text.toLowerCase();
  if (has("get_health_profile") && /\bmy\b[^.?!]*\b(profile|conditions|medications|meds)\b/.test(lower)) {
    return { toolName: "get_health_profile", input: {} };
  }
  if (has("list_health_logs") && /\b(my\b[^.?!]*\b(logs?|trackers?|diary|entries)|health logs?)\b/.test(lower)) {
    return { toolName: "list_health_logs", input: { limit: 5 } };
  }
  if (has("list_symptom_options") && /\bsymptom (options|list|choices)\b/.test(lower)) {
    const kind = /pregnan/.test(lower) ? "pregnancy" : "acute";
    return { toolName: "list_symptom_options", input: { kind } };
  }
  const drug = KNOWN_DRUGS.exec(text) ?? (MEDICATION_WORDS.test(text) ? DRUG_SUFFIX.exec(text) : null);
  if (has("get_medication_reference") && drug) {
    return { toolName: "get_medication_reference", input: { name: drug[0].toLowerCase() } };
  }
  const condition = KNOWN_CONDITIONS.exec(text) ?? CONDITION_SUFFIX.exec(text) ?? CONDITION_WORDS.exec(text);
  if (has("get_condition_reference") && condition) {
    const q = phraseAround(text, condition).toLowerCase();
    if (q.length >= 2) return { toolName: "get_condition_reference", input: { q } };
  }
  const words = keywords(text, 3);
  if (has("search_papers") && words.length > 0) return { toolName: "search_papers", input: { query: words.join(" ") } };
  return undefined;
}
