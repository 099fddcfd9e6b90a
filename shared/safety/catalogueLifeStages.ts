import type { Evidence } from "./evidence";
import type { Presentation, Verdict } from "./levels";

/**
 * Presentations tied to a stage of life or a body system: babies, pregnancy, diabetes, the gut,
 * testicles and the spine. Age and pregnancy change their thresholds.
 */
const verdict = (level: Verdict["level"], because: string, concept: string): Verdict => ({ level, because, concept });

/** Under 3 months old: NICE NG143 makes any fever of 38 °C or more a red feature. */
const youngInfant = (e: Evidence) => (e.ageYears !== undefined && e.ageYears < 0.25) || e.measures.ageYears === 0.02;

/** Early pregnancy: up to 12 weeks, a positive test or a missed period. */
const earlyPregnancy = (e: Evidence) =>
  e.mentioned("EARLY_PREGNANCY_CUE") ||
  (e.pregnant && (e.measures.gestationWeeks === undefined || e.measures.gestationWeeks <= 12));

export const LIFE_STAGE_PRESENTATIONS: Presentation[] = [
  {
    id: "infant_fever_newborn",
    label: "A fever or red-flag signs in a baby",
    guidance:
      "NICE NG143 'Fever in under 5s' traffic light: under 3 months with 38 °C or more, or any red feature (floppy, not feeding, weak high-pitched cry, bulging fontanelle, grunting, mottled or blue) needs emergency care; 3–6 months with 39 °C or more is amber (same day).",
    assess(e) {
      if (e.pregnant) return null;
      const baby = e.measures.babyOfUnknownAge || (e.ageYears !== undefined && e.ageYears < 1);
      const underFive = baby || (e.ageYears !== undefined && e.ageYears < 5) || (e.child && e.ageYears === undefined);
      if (underFive && e.has("INFANT_RED", "MOTTLED_SKIN", "NO_URINE", "BREATHING_RED")) {
        return verdict("emergency", "red-flag signs in a baby or young child", "INFANT_RED");
      }
      if (youngInfant(e) && (e.feverAtLeast(38) || e.has("FEVER"))) {
        return verdict("emergency", "a fever of 38 °C or more in a baby under 3 months", "FEVER");
      }
      const age = e.ageYears;
      if (age !== undefined && age < 0.5 && e.feverAtLeast(39)) {
        return verdict("urgent", "a fever of 39 °C or more in a baby under 6 months", "FEVER");
      }
      if (baby && age === undefined && e.feverAtLeast(38)) return verdict("urgent", "a fever in a baby", "FEVER");
      return null;
    },
  },
  {
    id: "ectopic_pregnancy",
    label: "Possible ectopic pregnancy",
    guidance:
      "NHS 'Ectopic pregnancy': in early pregnancy, pain low on one side, shoulder-tip pain, bleeding or brown discharge, feeling faint — go to A&E or call 999 if severe or faint; otherwise an early pregnancy unit the same day; RCOG/NICE NG126.",
    assess(e) {
      if (!earlyPregnancy(e)) return null;
      const oneSided = e.has("ONE_SIDED_PELVIC_PAIN");
      const pain = oneSided || e.has("ABDOMINAL_PAIN");
      // NHS "Ectopic pregnancy": feeling very dizzy or faint with the pain is a reason to call 999.
      const collapse = e.has("FEEL_FAINT", "FAINTED", "COLLAPSED", "SHOULDER_TIP_PAIN", "DIZZY");
      if (pain && (collapse || e.has("SEVERE")))
        return verdict("emergency", "pain in early pregnancy with faintness or severe pain", "ONE_SIDED_PELVIC_PAIN");
      if (oneSided && e.has("VAGINAL_BLEEDING"))
        return verdict("emergency", "one-sided pain and bleeding in early pregnancy", "ONE_SIDED_PELVIC_PAIN");
      if (oneSided) return verdict("urgent", "one-sided pain in early pregnancy", "ONE_SIDED_PELVIC_PAIN");
      return null;
    },
  },
  {
    id: "pregnancy_danger",
    label: "A danger sign in pregnancy",
    guidance:
      "WHO IMPAC 'Pregnancy, Childbirth, Postpartum and Newborn Care' danger signs (bleeding, convulsions, severe headache with blurred vision, fever, severe abdominal pain, fast or difficult breathing); NHS 'Pre-eclampsia' and 'Baby's movements': contact the maternity unit at once about reduced movements or waters breaking.",
    assess(e) {
      if (!e.pregnant) return null;
      const heavyBleed = e.has("VAGINAL_BLEEDING") && e.has("HEAVY_BLOOD_LOSS");
      if (heavyBleed || e.has("SEIZURE", "CANT_BREATHE", "BREATHING_RED", "UNRESPONSIVE")) {
        return verdict("emergency", "heavy bleeding, a fit or breathing trouble in pregnancy", "PREGNANT");
      }
      if (e.has("ABDOMINAL_PAIN") && e.has("SEVERE"))
        return verdict("emergency", "severe abdominal pain in pregnancy", "ABDOMINAL_PAIN");
      const preEclampsia = [e.has("HEADACHE", "WORST_HEADACHE"), e.has("BLURRED_VISION"), e.has("SWELLING_FACE_HANDS")];
      if (preEclampsia.filter(Boolean).length >= 2)
        return verdict("emergency", "headache, vision changes or swelling in pregnancy (pre-eclampsia)", "PREGNANT");
      if (e.has("VAGINAL_BLEEDING", "MISCARRIAGE"))
        return verdict("urgent", "bleeding or a possible miscarriage in pregnancy", "VAGINAL_BLEEDING");
      if (e.has("FETAL_MOVEMENT_REDUCED")) return verdict("urgent", "the baby moving less", "FETAL_MOVEMENT_REDUCED");
      if (e.has("WATERS_BROKEN")) return verdict("urgent", "waters breaking", "WATERS_BROKEN");
      if (e.has("BLURRED_VISION", "SWELLING_FACE_HANDS", "WORST_HEADACHE") || (e.has("HEADACHE") && e.has("SEVERE"))) {
        return verdict("urgent", "a possible sign of pre-eclampsia", "PREGNANT");
      }
      if (e.feverAtLeast(38) || e.has("FEVER")) return verdict("urgent", "a fever in pregnancy", "FEVER");
      return null;
    },
  },
  {
    id: "dka_hypoglycaemia",
    label: "Diabetic emergency (ketoacidosis or a severe hypo)",
    guidance:
      "NHS 'Diabetic ketoacidosis': high blood sugar or ketones with vomiting, tummy pain, fast deep breathing, fruity breath or drowsiness — A&E or 999; NHS 'Low blood sugar (hypoglycaemia)': call 999 if someone is unconscious, fitting, or not improving after sugar; a treated hypo is self-care.",
    assess(e) {
      const diabetic = e.has("DIABETES", "HYPO", "KETOSIS", "HIGH_SUGAR");
      if (!diabetic) return null;
      const ketotic = e.has("KETOSIS") || (e.has("DIABETES", "HIGH_SUGAR") && e.has("DEEP_BREATHING"));
      const glucose = e.measures.glucoseMmol;
      const ketones = e.measures.ketonesMmol;
      const hypo = e.has("HYPO") || (glucose !== undefined && glucose < 4);
      if (
        hypo &&
        e.has("UNRESPONSIVE", "SEIZURE", "HYPO_NOT_RESPONDING", "CONFUSION", "DROWSY", "COLLAPSED", "FAINTED")
      ) {
        return verdict("emergency", "a severe hypo", "HYPO");
      }
      // A person with diabetes who is confused or cannot be roused needs help now, hypo or ketoacidosis.
      if (e.has("DIABETES") && e.has("CONFUSION", "UNRESPONSIVE", "SEIZURE", "COLLAPSED", "FAINTED")) {
        return verdict("emergency", "a person with diabetes who is confused or unresponsive", "DIABETES");
      }
      const ill = e.has(
        "VOMITING",
        "ABDOMINAL_PAIN",
        "DROWSY",
        "CONFUSION",
        "BREATHING_FAST",
        "CANT_BREATHE",
        "VERY_UNWELL",
        "DEEP_BREATHING",
      );
      const high = e.has("HIGH_SUGAR") || (glucose !== undefined && glucose >= 15);
      if ((ketones !== undefined && ketones >= 3) || (ketotic && ill) || (high && ill && e.has("DIABETES"))) {
        return verdict("emergency", "high sugar or ketones with vomiting, drowsiness or fast breathing", "KETOSIS");
      }
      if (ketotic || (ketones !== undefined && ketones >= 1.5)) return verdict("urgent", "raised ketones", "KETOSIS");
      if (hypo) return verdict("self_care", "a hypo to treat with fast sugar", "HYPO");
      if (high) return verdict("soon", "high blood sugar without other symptoms", "HIGH_SUGAR");
      return null;
    },
  },
  {
    id: "gi_bleeding",
    label: "Bleeding from the gut",
    guidance:
      "NHS 'Vomiting blood' and 'Blood in poo': vomiting blood or coffee-ground material, or black tarry poo, needs A&E or 999 now; bright red blood on the paper is usually piles — see a GP; NICE CKS 'Gastrointestinal bleeding'.",
    assess(e) {
      if (e.has("VOMIT_BLOOD")) return verdict("emergency", "vomiting blood or coffee-ground material", "VOMIT_BLOOD");
      if (e.has("BLACK_STOOL") && e.has("IRON_CUE") && !e.has("FEEL_FAINT", "FAINTED", "ABDOMINAL_PAIN", "VOMITING")) {
        return verdict("self_care", "dark poo explained by iron tablets", "BLACK_STOOL");
      }
      if (e.has("BLACK_STOOL")) return verdict("emergency", "black, tarry poo", "BLACK_STOOL");
      if (e.has("RECTAL_BLOOD")) {
        const heavy = e.has("HEAVY_BLOOD_LOSS", "MAJOR_BLEEDING", "FEEL_FAINT", "FAINTED");
        return verdict(
          heavy ? "emergency" : "soon",
          heavy ? "heavy bleeding from the bottom" : "blood in the poo",
          "RECTAL_BLOOD",
        );
      }
      if (e.has("COUGH_BLOOD"))
        return verdict(e.has("HEAVY_BLOOD_LOSS") ? "emergency" : "urgent", "coughing up blood", "COUGH_BLOOD");
      return null;
    },
  },
  {
    id: "testicular_torsion",
    label: "Sudden testicle pain (possible torsion)",
    guidance:
      "NHS 'Testicle pain': sudden, severe pain in the testicles, or pain with swelling, vomiting or tummy pain, needs A&E immediately (torsion); a dull ache or lump over weeks needs a GP.",
    assess(e) {
      if (!e.has("TESTICLE_PAIN")) return null;
      const acute = e.has("SUDDEN", "SEVERE", "VOMITING", "ABDOMINAL_PAIN") || e.child;
      if (acute) return verdict("emergency", "sudden or severe testicle pain", "TESTICLE_PAIN");
      if (e.durationMinutes() >= 7 * 1440 || e.has("MILD", "LUMP", "RECURRING"))
        return verdict("soon", "a mild or long-standing testicle ache", "TESTICLE_PAIN");
      return verdict("urgent", "testicle pain", "TESTICLE_PAIN");
    },
  },
  {
    id: "cauda_equina",
    label: "Back pain with cauda equina red flags",
    guidance:
      "NHS 'Cauda equina syndrome' and NICE CKS 'Back pain — low (without radiculopathy)' red flags: numbness around the bottom or genitals, loss of bladder or bowel control, or weakness in both legs — go to A&E immediately.",
    assess(e) {
      const back = e.has("BACK_PAIN");
      if (e.has("SADDLE_NUMBNESS"))
        return verdict("emergency", "numbness around the bottom or genitals", "SADDLE_NUMBNESS");
      if (back && e.has("BLADDER_BOWEL_LOSS", "BOTH_LEGS_WEAK")) {
        return verdict("emergency", "back pain with loss of bladder or bowel control or weak legs", "BACK_PAIN");
      }
      return null;
    },
  },
];
