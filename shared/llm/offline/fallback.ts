import { STOPWORDS } from "./text";

/**
 * Keyword rules, used only when the vocabularies name nothing (or could not be read): a known
 * drug or a drug-like word next to words such as "dose"; a known condition, or a name the message
 * writes as one ("Crohn's disease"). A word that only looks like a condition ("diagnosis",
 * "prognosis": -osis) is not looked up: that would name a condition the person did not write.
 */
const MEDICATION_WORDS =
  /\b(medications?|medicines?|drugs?|pills?|tablets?|capsules?|doses?|dosage|side[- ]effects?|label|warnings?|interactions?|prescribed|taking|mg)\b/i;
const KNOWN_DRUGS =
  /\b(aspirin|ibuprofen|paracetamol|acetaminophen|naproxen|metformin|insulin|lisinopril|amlodipine|atorvastatin|simvastatin|omeprazole|levothyroxine|sertraline|fluoxetine|amoxicillin|azithromycin|prednisone|warfarin|zolpidem|ambien|humira|adalimumab|phenylephrine|sudafed|vyvanse|lisdexamfetamine|cetirizine|loratadine|salbutamol|albuterol|montelukast|gabapentin|tramadol|codeine|morphine|diazepam|lorazepam|clopidogrel|apixaban|rivaroxaban|semaglutide|ozempic)\b/i;
const DRUG_SUFFIX =
  /\b\w+(pril|sartan|olol|statin|mab|cillin|mycin|azole|prazole|dipine|oxetine|triptan|tidine|profen|floxacin|cycline|parin|xaban|gliptin|glutide|vir|semide|thiazide)\b/i;
const KNOWN_CONDITIONS =
  /\b(asthma|diabetes|migraine|influenza|flu|covid(-19)?|hypertension|depression|anxiety|eczema|psoriasis|epilepsy|obesity|anemia|anaemia|pneumonia|bronchitis|cancer|leukemia|lymphoma|alzheimer'?s?|parkinson'?s?|dementia|lupus|gout|sepsis|measles|malaria|tuberculosis|endometriosis|preeclampsia|pre-eclampsia)\b/i;
/** "condition" is left out: the word before it is usually a place or a judgement ("heart", "serious"). */
const CONDITION_WORDS = /\b(syndrome|disease|disorder|infection|deficiency)\b/i;

export function fallbackMedication(text: string): string | undefined {
  const drug = KNOWN_DRUGS.exec(text) ?? (MEDICATION_WORDS.test(text) ? DRUG_SUFFIX.exec(text) : null);
  return drug?.[0].toLowerCase();
}

/** A condition-like phrase: "Crohn's disease" → "crohn's disease". */
export function fallbackCondition(text: string): string | undefined {
  const match = KNOWN_CONDITIONS.exec(text) ?? CONDITION_WORDS.exec(text);
  if (!match) return undefined;
  const before = text.slice(0, match.index).match(/([\p{L}'-]+)\s*$/u)?.[1];
  const word = match[0];
  const phrase =
    CONDITION_WORDS.test(word) && before && !STOPWORDS.has(before.toLowerCase()) ? `${before} ${word}` : word;
  return phrase.length >= 2 && !CONDITION_WORDS.test(phrase.trim()) ? phrase.toLowerCase() : undefined;
}
