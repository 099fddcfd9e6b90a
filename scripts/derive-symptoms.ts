/**
 * Derives the symptom choice lists served by GET /api/v1/health/symptoms
 * (shared/data/symptoms/{acute,pregnancy,custom}.json) from the vocabularies in
 * the source vocabularies named in shared/data/symptoms/PROVENANCE.md, which gives the rules.
 *
 *   bun scripts/derive-symptoms.ts DIR-WITH-SOURCE-VOCABULARIES [--allow-removed-ids]
 *
 * Deterministic: no clocks, no locale-dependent sorting, fixed JSON formatting
 * (tab-indented, which is what Biome's default formatter expects).
 * Ids are a public contract (users store them), so the run fails if an id that is
 * already in a shipped file would disappear, unless --allow-removed-ids is given.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { usage } from "./lib/usage";

type Symptom = { id: string; label: string; urgent?: true };
type Kind = "acute" | "pregnancy" | "custom";

const ROOT = resolve(import.meta.dir, "..");
const OUT_DIR = join(ROOT, "shared/data/symptoms");
const args = process.argv.slice(2);
const allowRemovedIds = args.includes("--allow-removed-ids");
const IN_DIR = resolve(
  args.find((a) => !a.startsWith("--")) ?? usage("bun scripts/derive-symptoms.ts DIR-WITH-SOURCE-VOCABULARIES"),
);

// Short provenance lines; the inputs carry no commit, so it is pinned here
// (copied from the team data folder's PROVENANCE.md, section 4).
const SOURCE: Record<Kind, string> = {
  acute:
    "itachi9604/healthcare-chatbot@e4194028 MasterData/Symptom_severity.csv (Kaggle Disease Symptom Prediction; no licence file)",
  pregnancy:
    "opensrp/opensrp-client-anc@5c62a312 WHO ANC forms anc_quick_check.json + anc_symptoms_follow_up.json (Apache-2.0)",
  custom: "Curated general list; labels/ids checked against HPO (obophenotype/human-phenotype-ontology@af70204c)",
};

// ---------------------------------------------------------------- acute ----

// Red flags: symptoms that are themselves signs of a possible emergency
// (cardiorespiratory, stroke/reduced consciousness, bleeding, organ failure,
// a severe systemic state), in line with public "seek care now" lists (NHS 999/A&E,
// CDC emergency warning signs, stroke FAST) and the WHO ANC danger signs.
// NOT the upstream severity weight: it is a disease-prediction feature weight
// (e.g. coma and high_fever weigh 7 like swelling_of_stomach; altered_sensorium weighs 2).
// Keyed by upstream key so the list is reviewable against the CSV.
const ACUTE_RED_FLAGS = new Set([
  "chest_pain", // possible heart attack / pulmonary embolism
  "breathlessness", // difficulty breathing
  "altered_sensorium", // confusion, reduced awareness
  "coma", // unresponsive
  "slurred_speech", // stroke (FAST)
  "weakness_of_one_body_side", // stroke (FAST)
  "blood_in_sputum", // coughing up blood
  "stomach_bleeding", // upper GI bleed
  "bloody_stool", // lower GI bleed
  "acute_liver_failure", // organ failure
  "high_fever", // source separates it from mild_fever
  "toxic_look_(typhos)", // "looks very ill" (a WHO danger sign)
]);

// Rows that describe history or exposure, not how an illness is going.
const ACUTE_NOT_SYMPTOMS = new Set([
  "family_history",
  "history_of_alcohol_consumption",
  "extra_marital_contacts",
  "receiving_blood_transfusion",
  "receiving_unsterile_injections",
]);

// Obvious upstream typos/grammar, fixed in the label only (the id keeps the key).
const ACUTE_LABEL_FIXES: Record<string, string> = {
  cold_hands_and_feets: "Cold hands and feet",
  dischromic_patches: "Dyschromic patches",
  foul_smell_ofurine: "Foul smell of urine",
  scurring: "Scarring",
  swelled_lymph_nodes: "Swollen lymph nodes",
  swollen_extremeties: "Swollen extremities",
};

function deriveAcute(): Symptom[] {
  const rows = readFileSync(join(IN_DIR, "disease-symptom-prediction_Symptom_severity.csv"), "utf8")
    .split("\n")
    .map((line) => line.trim())
    .filter(Boolean)
    .map((line) => line.replace(/,.*$/, "").trim()); // "key,weight"; the weight is not shipped
  const curated = [...ACUTE_RED_FLAGS, ...ACUTE_NOT_SYMPTOMS, ...Object.keys(ACUTE_LABEL_FIXES)];
  for (const k of curated) if (!rows.includes(k)) throw new Error(`acute: curated key ${k} not in source`);
  const seen = new Set<string>();
  const out: Symptom[] = [];
  for (const key of rows) {
    // fluid_overload occurs twice upstream (weights 6 and 4); the weight is not shipped.
    if (seen.has(key) || ACUTE_NOT_SYMPTOMS.has(key)) continue;
    seen.add(key);
    const label = ACUTE_LABEL_FIXES[key] ?? sentenceCase(key.replace(/_/g, " "));
    out.push(symptom(slug(key), label, ACUTE_RED_FLAGS.has(key)));
  }
  return out;
}

// ------------------------------------------------------------ pregnancy ----

type AncOption = {
  key: string;
  label: string;
  group: string;
  ciel_concept_id: string | null;
};

// "None" answers (CIEL 1107) and free-text "Other (specify)" (CIEL 5622) are not symptoms.
const ANC_EXCLUDED_CIEL = new Set(["1107", "5622"]);

// Same sign, different CIEL concept: the danger sign "Bleeding vaginally" is the
// complaint "Vaginal bleeding"; merging keeps the UI from offering both.
const ANC_SAME_AS: Record<string, string> = {
  "danger_signs.danger_bleeding": "specific_complaint.bleeding",
};

// Two different concepts upstream share the key `cough`; the later one gets its own id.
const ANC_ID_OVERRIDES: Record<string, string> = {
  "other_symptoms.cough": "cough_over_3_weeks",
};

// Form-style labels ("Pain - Low back") read badly in a flat list; two exceed 60 chars.
const ANC_LABELS: Record<string, string> = {
  abnormal_discharge: "Abnormal vaginal discharge",
  changes_in_bp: "High blood pressure (hypertension)",
  changes_in_bp_down: "Low blood pressure (hypotension)",
  no_fetal_movement: "No fetal movements",
  reduced_fetal_movement: "Reduced fetal movements",
  anxiety: "Anxiety",
  depression: "Depression",
  other_psychological_symptoms: "Other psychological symptoms",
  full_abdominal_pain: "Abdominal pain",
  dysuria: "Pain during urination (dysuria)",
  extreme_pelvic_pain: "Extreme pelvic pain, cannot walk",
  leg_pain: "Leg pain",
  low_back_pain: "Low back pain",
  other_pain: "Other pain",
  pelvic_pain: "Pelvic pain",
  pruritus: "Itching (pruritus)",
  oedema: "Swelling (oedema)",
};

function derivePregnancy(): Symptom[] {
  const src = JSON.parse(readFileSync(join(IN_DIR, "pregnancy-symptoms-who-anc.json"), "utf8"));
  const options = (src.symptoms as AncOption[]).filter((o) => !ANC_EXCLUDED_CIEL.has(o.ciel_concept_id ?? ""));
  // One entry per concept across groups: options merge when they share the CIEL
  // concept id or the (case-insensitive) label, or via ANC_SAME_AS. The first
  // occurrence in source order gives id and label; the entry is urgent if any
  // occurrence is a danger sign (so Fever and Visual disturbance are urgent).
  const byConcept = new Map<string, Symptom>();
  const byRef = new Map<string, Symptom>();
  const out: Symptom[] = [];
  for (const o of options) {
    const ref = `${o.group}.${o.key}`;
    const concept = o.ciel_concept_id ? `ciel:${o.ciel_concept_id}` : `label:${o.label.toLowerCase()}`;
    const urgent = o.group === "danger_signs";
    let s =
      byRef.get(ANC_SAME_AS[ref] ?? "") ?? byConcept.get(concept) ?? byConcept.get(`label:${o.label.toLowerCase()}`);
    if (!s) {
      const id = ANC_ID_OVERRIDES[ref] ?? slug(o.key);
      s = symptom(id, ANC_LABELS[o.key] ?? sentenceCase(o.label), false);
      out.push(s);
    }
    if (urgent) s.urgent = true;
    byConcept.set(concept, s);
    byConcept.set(`label:${o.label.toLowerCase()}`, s);
    byRef.set(ref, s);
  }
  return out;
}

// --------------------------------------------------------------- custom ----

// Short general list for any custom log. `hpo` is the HPO term the item stands for;
// the label is the HPO label unless a plainer word is given. `acute` names the
// matching acute red flag, so urgency stays consistent with the acute list.
const CUSTOM: { hpo: string; label?: string; acute?: string }[] = [
  { hpo: "HP:0002027" }, // Abdominal pain
  { hpo: "HP:0000739" }, // Anxiety
  { hpo: "HP:0003418" }, // Back pain
  { hpo: "HP:0033630" }, // Brain fog
  { hpo: "HP:0100749", acute: "chest_pain" }, // Chest pain
  { hpo: "HP:0025143" }, // Chills
  { hpo: "HP:0001289", acute: "altered_sensorium" }, // Confusion
  { hpo: "HP:0002019" }, // Constipation
  { hpo: "HP:0012735" }, // Cough
  { hpo: "HP:0002014", label: "Diarrhoea" }, // Diarrhea (British spelling as in the other lists)
  { hpo: "HP:0002321", label: "Dizziness" }, // Vertigo (HPO synonym: dizziness)
  { hpo: "HP:0012378" }, // Fatigue
  { hpo: "HP:0001945" }, // Fever (plain fever is not a red flag; acute flags only high_fever)
  { hpo: "HP:0002315" }, // Headache
  { hpo: "HP:0000989", label: "Itching" }, // Pruritus
  { hpo: "HP:0002829", label: "Joint pain" }, // Arthralgia
  { hpo: "HP:0000716", label: "Low mood" }, // Depressivity
  { hpo: "HP:0003326", label: "Muscle pain" }, // Myalgia
  { hpo: "HP:0002018" }, // Nausea
  { hpo: "HP:0012531" }, // Pain
  { hpo: "HP:0001962" }, // Palpitations
  { hpo: "HP:0004396" }, // Poor appetite
  { hpo: "HP:0031417", label: "Runny nose" }, // Rhinorrhea
  { hpo: "HP:0002094", label: "Shortness of breath", acute: "breathlessness" }, // Dyspnea
  { hpo: "HP:0000988" }, // Skin rash
  { hpo: "HP:0002360" }, // Sleep disturbance
  { hpo: "HP:0025439", label: "Sore throat" }, // Pharyngitis
  { hpo: "HP:0002013" }, // Vomiting
];

function deriveCustom(): Symptom[] {
  const hpo = new Map<string, { label: string; obsolete: boolean }>();
  const tsv = new TextDecoder().decode(Bun.gunzipSync(readFileSync(join(IN_DIR, "hpo-term-labels.tsv.gz"))));
  for (const line of tsv.split("\n").slice(1)) {
    const [id, label, obsolete] = line.split("\t");
    if (id && label) hpo.set(id, { label, obsolete: obsolete === "true" });
  }
  return CUSTOM.map((c) => {
    const term = hpo.get(c.hpo);
    if (!term || term.obsolete) throw new Error(`custom: ${c.hpo} missing or obsolete in HPO`);
    if (c.acute && !ACUTE_RED_FLAGS.has(c.acute)) throw new Error(`custom: ${c.acute} is not an acute red flag`);
    const label = c.label ?? term.label;
    return symptom(slug(label), label, Boolean(c.acute));
  });
}

// --------------------------------------------------------------- shared ----

function slug(s: string): string {
  return s
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "_")
    .replace(/^_+|_+$/g, "");
}

function sentenceCase(s: string): string {
  const t = s.trim().replace(/\s+/g, " ");
  return t.charAt(0).toUpperCase() + t.slice(1);
}

function symptom(id: string, label: string, urgent: boolean): Symptom {
  return urgent ? { id, label, urgent: true } : { id, label };
}

// UI order: red flags first, then alphabetical by label. Plain code-unit comparison
// (not localeCompare) so the output does not depend on the ICU/locale of the machine.
function uiOrder(a: Symptom, b: Symptom): number {
  const ua = a.urgent ? 0 : 1;
  const ub = b.urgent ? 0 : 1;
  if (ua !== ub) return ua - ub;
  const la = a.label.toLowerCase();
  const lb = b.label.toLowerCase();
  return la < lb ? -1 : la > lb ? 1 : a.id < b.id ? -1 : a.id > b.id ? 1 : 0;
}

function check(kind: Kind, list: Symptom[]): void {
  const ids = new Set<string>();
  const labels = new Set<string>();
  for (const s of list) {
    if (!/^[a-z0-9_]{1,60}$/.test(s.id)) throw new Error(`${kind}: bad id ${s.id}`);
    if (ids.has(s.id)) throw new Error(`${kind}: duplicate id ${s.id}`);
    if (labels.has(s.label.toLowerCase())) throw new Error(`${kind}: duplicate label ${s.label}`);
    if (!s.label || s.label.length > 60) throw new Error(`${kind}: bad label length ${s.label}`);
    ids.add(s.id);
    labels.add(s.label.toLowerCase());
  }
  const file = join(OUT_DIR, `${kind}.json`);
  if (existsSync(file)) {
    const removed = (JSON.parse(readFileSync(file, "utf8")).symptoms as Symptom[])
      .map((s) => s.id)
      .filter((id) => !ids.has(id));
    if (removed.length && !allowRemovedIds)
      throw new Error(`${kind}: would remove shipped ids ${removed.join(", ")} (pass --allow-removed-ids)`);
  }
}

function write(kind: Kind, list: Symptom[]): void {
  const file = join(OUT_DIR, `${kind}.json`);
  const body = {
    kind,
    source: SOURCE[kind],
    symptoms: [...list].sort(uiOrder),
  };
  writeFileSync(file, `${JSON.stringify(body, null, "\t")}\n`);
  console.log(`${file}: ${list.length} symptoms, ${list.filter((s) => s.urgent).length} urgent`);
}

// Derive and check all three before writing any, so a failure leaves the shipped files untouched.
const lists: [Kind, Symptom[]][] = [
  ["acute", deriveAcute()],
  ["pregnancy", derivePregnancy()],
  ["custom", deriveCustom()],
];
for (const [kind, list] of lists) check(kind, list);
mkdirSync(OUT_DIR, { recursive: true });
for (const [kind, list] of lists) write(kind, list);
