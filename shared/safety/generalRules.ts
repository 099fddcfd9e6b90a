import type { Evidence } from "./evidence";
import { moreUrgent, type TriageLevel } from "./levels";
import { EVERYDAY_SYMPTOMS } from "./signsGeneral";
import type { Subject } from "./subject";

/**
 * The level for symptoms that match no catalogue presentation, from a few general severity rules
 * (NHS "111 online" and NICE CKS practice): an everyday complaint is self-care; a lump, blood in the
 * urine or a change in mood is a GP visit within days; anything lasting weeks, getting worse or
 * coming back is "soon"; severe or worst-ever pain, or a very high fever, is same-day care.
 */
export interface GeneralVerdict {
  level: Exclude<TriageLevel, "none">;
  because: string;
  subject: Subject;
}

/** Signs from the catalogue's tables that count as everyday symptoms when no presentation fired. */
const SIGNS_AS_SYMPTOMS: Record<string, "self_care" | "soon"> = {
  FEVER: "self_care",
  VOMITING: "self_care",
  HEADACHE: "self_care",
  ABDOMINAL_PAIN: "self_care",
  BACK_PAIN: "self_care",
  DIARRHOEA: "self_care",
  STIFF_NECK: "self_care",
  HIVES: "self_care",
  FEEL_FAINT: "self_care",
  CHEST_PAIN: "soon",
  SHORT_OF_BREATH: "self_care",
  LIMB_BENIGN_CUE: "self_care",
  SUNBURN: "self_care",
  FACE_SWELLING: "soon",
  WHEEZE: "soon",
  BLURRED_VISION: "soon",
  PALPITATIONS: "soon",
  LIMB_WEAKNESS: "soon",
  CONFUSION: "soon",
  BLADDER_BOWEL_LOSS: "soon",
};

const WEEKS_2 = 14 * 1440;
const BENIGN_NUMBNESS = ["NUMB_TINGLE", "LIMB_WEAKNESS"];

const PAIN_LIKE = [
  "PAIN_OTHER",
  "ACHES",
  "TUMMY_ACHE",
  "ABDOMINAL_PAIN",
  "HEADACHE",
  "HEADACHE_MILD",
  "EAR_EYE",
  "TOOTH",
  "BACK_PAIN",
];

export function generalVerdict(e: Evidence): GeneralVerdict | null {
  const levels: Record<string, "self_care" | "soon"> = {
    ...Object.fromEntries(Object.entries(EVERYDAY_SYMPTOMS).map(([id, entry]) => [id, entry.level])),
    ...SIGNS_AS_SYMPTOMS,
  };
  // Tingling where a sting or rash is, like numbness from lying on an arm, is not a nerve problem to book in for.
  const found = Object.keys(levels).filter(
    (id) => e.has(id) && !(BENIGN_NUMBNESS.includes(id) && (e.has("LIMB_BENIGN_CUE") || e.near(id, "SKIN", 0))),
  );
  // A measured temperature is a fever even when the word is not said ("the thermometer says 38.1").
  if ((e.measures.temperatureC ?? 0) >= 38 && !found.includes("FEVER")) found.push("FEVER");
  if (e.has("FRACTURE_SIGNS", "URINE_RETENTION")) {
    return {
      level: "urgent",
      because: "a possible broken bone or being unable to pass urine",
      subject: e.subjectOf("FRACTURE_SIGNS", "URINE_RETENTION"),
    };
  }
  if (found.length === 0) return null;
  let level: GeneralVerdict["level"] = found.some((id) => levels[id] === "soon") ? "soon" : "self_care";
  // A chest sore from coughing through a cold, a strained chest muscle or a mild twinge is looked after at
  // home (NHS "Chest pain").
  if (
    found.includes("CHEST_PAIN") &&
    (e.has("MILD", "COLD") || (e.has("CHEST_WALL_CUE") && e.has("ACHES"))) &&
    !found.some((id) => id !== "CHEST_PAIN" && levels[id] === "soon")
  ) {
    level = "self_care";
  }
  let because = "everyday symptoms";
  const severe = found.some((id) => e.near(id, "SEVERE_STRONG", 0));
  if (severe) {
    [level, because] = PAIN_LIKE.some((id) => e.has(id)) ? ["urgent", "severe pain"] : ["soon", "severe symptoms"];
  }
  if (level !== "urgent" && (e.durationMinutes() >= WEEKS_2 || e.has("WORSENING", "RECURRING"))) {
    [level, because] = [
      moreUrgent(level, "soon") as GeneralVerdict["level"],
      "symptoms lasting weeks or getting worse",
    ];
  }
  const temperature = e.measures.temperatureC;
  if (temperature !== undefined && temperature >= 40) [level, because] = ["urgent", "a very high fever"];
  if (level === "self_care" && e.has("FEVER", "FEVER_MILD") && e.durationMinutes() >= (e.child ? 5 : 3) * 1440) {
    [level, because] = ["soon", "a fever lasting several days"];
  }
  if (e.has("BLADDER_BOWEL_LOSS") && e.findings("BLADDER_BOWEL_LOSS").length > 0 && !e.has("BACK_PAIN")) {
    [level, because] = [moreUrgent(level, "soon") as GeneralVerdict["level"], "a change in bladder or bowel control"];
  }
  if (e.ageYears !== undefined && e.ageYears < 0.25 && level === "self_care")
    [level, because] = ["soon", "symptoms in a young baby"];
  return { level, because, subject: e.subjectOf(...found) };
}
