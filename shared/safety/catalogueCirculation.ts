import type { Evidence } from "./evidence";
import type { Presentation, Verdict } from "./levels";

/**
 * Presentations of the heart, lungs, brain and blood: what each needs, and what makes it urgent or
 * soon rather than an emergency. Levels: emergency = call the emergency number now; urgent =
 * same-day care; soon = a doctor within days.
 */
const verdict = (level: Verdict["level"], because: string, concept: string): Verdict => ({ level, because, concept });

/** Breathing trouble said in any of its forms. */
const breathless = (e: Evidence) => e.has("CANT_BREATHE", "SHORT_OF_BREATH", "BREATHING_RED", "WHEEZE");

export const CIRCULATION_PRESENTATIONS: Presentation[] = [
  {
    id: "cardiac_chest_pain",
    label: "Chest pain that could be a heart attack",
    guidance:
      "NHS 'Heart attack' and 'When to call 999': sudden chest pain that spreads to the arms, jaw, neck or back, or feels heavy, tight or like pressure, or comes with sweating, breathlessness or feeling sick; NICE CG95 chest pain of recent onset.",
    assess(e) {
      if (e.has("HEART_ATTACK_NOW"))
        return verdict("emergency", "says a heart attack is happening", "HEART_ATTACK_NOW");
      if (!e.has("CHEST_PAIN", "CHEST_PRESSURE_QUALITY")) return null;
      const cardiacFeature =
        e.has("PAIN_SPREADING", "CARDIAC_COMPANION", "FEEL_FAINT", "FAINTED") ||
        breathless(e) ||
        e.has("SUDDEN", "SEVERE");
      if (cardiacFeature) return verdict("emergency", "chest pain with features of a heart attack", "CHEST_PAIN");
      // Chest pain brought on by exertion, or that will not settle with rest, is new angina or a heart
      // attack until shown otherwise; the same pattern for weeks is a GP visit (NICE CG95).
      const longStanding = e.durationMinutes() >= 14 * 1440;
      if (e.has("BREATH_EXERTION_CUE", "WONT_STOP") && !longStanding && !e.has("REFLUX_CUE", "CHEST_WALL_CUE")) {
        return verdict("emergency", "chest pain on exertion or not settling with rest", "CHEST_PAIN");
      }
      // Reflux, a strain or a cough without any other heart-attack feature ("tight from a chesty
      // cold") is not this presentation; the general rules give it self-care or a GP visit.
      if (e.has("REFLUX_CUE", "CHEST_WALL_CUE")) return null;
      if (e.has("CHEST_PRESSURE_QUALITY"))
        return verdict("emergency", "heavy, tight or crushing chest pain", "CHEST_PAIN");
      if (e.durationMinutes() >= 14 * 1440 || e.has("MILD"))
        return verdict("soon", "mild or long-standing chest pain", "CHEST_PAIN");
      return verdict("urgent", "chest pain", "CHEST_PAIN");
    },
  },
  {
    id: "aortic_dissection",
    label: "Tearing chest or back pain (aortic dissection)",
    guidance: "NHS 'Aortic dissection': sudden severe tearing or ripping pain in the chest or upper back — call 999.",
    assess(e) {
      if (!e.has("TEARING_PAIN")) return null;
      return verdict("emergency", "sudden tearing pain in the chest or back", "TEARING_PAIN");
    },
  },
  {
    id: "stroke",
    label: "Signs of a stroke (FAST)",
    guidance:
      "NHS and Stroke Association FAST (face, arms, speech, time to call 999); NICE NG128: symptoms that have fully resolved (TIA) need specialist assessment within 24 hours; NHS 'Subarachnoid haemorrhage': a sudden, worst-ever headache.",
    assess(e) {
      // Weakness in both legs is a spinal sign (cauda equina), not a one-sided stroke sign.
      const sameSentence = (concept: string, sentence: number) =>
        e.findings(concept).some((c) => c.sentence === sentence);
      const limb = e
        .findings("LIMB_WEAKNESS")
        .some((f) => !sameSentence("LIMB_BENIGN_CUE", f.sentence) && !sameSentence("BOTH_LEGS_WEAK", f.sentence));
      const fast = e.has("FACE_DROOP", "SPEECH_PROBLEM") || limb;
      if (fast && e.has("RECOVERED") && !e.has("SUDDEN")) {
        return verdict("urgent", "stroke signs that have passed (possible TIA)", "FACE_DROOP");
      }
      if (e.has("FACE_DROOP")) return verdict("emergency", "a drooping face", "FACE_DROOP");
      if (e.has("STROKE_NOW")) return verdict("emergency", "says a stroke is happening", "STROKE_NOW");
      if (e.has("SPEECH_PROBLEM")) return verdict("emergency", "slurred or jumbled speech", "SPEECH_PROBLEM");
      if (limb && e.durationMinutes("LIMB_WEAKNESS") >= 7 * 1440 && !e.has("SUDDEN")) {
        return verdict("soon", "weakness or numbness in a limb for a while", "LIMB_WEAKNESS");
      }
      if (limb) return verdict("emergency", "sudden weakness or numbness in an arm, leg or one side", "LIMB_WEAKNESS");
      if (e.has("WORST_HEADACHE")) return verdict("emergency", "a sudden, worst-ever headache", "WORST_HEADACHE");
      if (e.has("CONFUSION") && e.has("SUDDEN") && !e.has("FEVER", "INFECTION")) {
        return verdict("emergency", "sudden confusion", "CONFUSION");
      }
      return null;
    },
  },
  {
    id: "breathing_difficulty",
    label: "Difficulty breathing",
    guidance:
      "NHS 'When to call 999': struggling to breathe, choking, blue or grey lips or skin, unable to speak in full sentences; NHS 'Shortness of breath': see a GP for breathlessness that has lasted a while, same-day care for new breathlessness; NHS 'Asthma attack'.",
    assess(e) {
      const oxygen = e.measures.oxygenPercent;
      if (e.has("BREATHING_RED") || (oxygen !== undefined && oxygen < 92)) {
        return verdict(
          "emergency",
          "severe breathing difficulty (blue lips, can't speak, low oxygen)",
          "BREATHING_RED",
        );
      }
      if (e.has("CHOKING") && !e.has("RECOVERED")) return verdict("emergency", "choking", "CHOKING");
      if (e.has("INHALER_FAILING"))
        return verdict("emergency", "an asthma attack not helped by the inhaler", "INHALER_FAILING");
      if (e.has("ASTHMA_ATTACK")) {
        const severe = e.has("CANT_BREATHE", "SEVERE");
        return verdict(severe ? "emergency" : "urgent", "an asthma attack", "ASTHMA_ATTACK");
      }
      const exertion = e.has("BREATH_EXERTION_CUE") && !e.has("MINIMAL_EXERTION");
      // Out of breath after running and fine again: ordinary exertion.
      if (exertion && e.has("RECOVERED", "OTHERWISE_WELL", "MILD") && !e.has("SUDDEN", "SEVERE", "BREATHING_RED")) {
        return null;
      }
      if (e.has("CANT_BREATHE")) {
        if (exertion && !e.has("SUDDEN", "SEVERE"))
          return verdict("soon", "breathlessness on exertion", "CANT_BREATHE");
        return verdict("emergency", "struggling to breathe", "CANT_BREATHE");
      }
      if (e.has("SHORT_OF_BREATH")) {
        if (e.has("SUDDEN", "SEVERE"))
          return verdict("emergency", "sudden or severe breathlessness", "SHORT_OF_BREATH");
        if (exertion || e.durationMinutes() >= 7 * 1440 || e.has("RECURRING")) {
          return verdict("soon", "breathlessness on exertion or for a while", "SHORT_OF_BREATH");
        }
        return verdict("urgent", "new shortness of breath", "SHORT_OF_BREATH");
      }
      if (e.has("WHEEZE") && e.child) return verdict("urgent", "a wheezing child", "WHEEZE");
      return null;
    },
  },
  {
    id: "anaphylaxis",
    label: "A severe allergic reaction (anaphylaxis)",
    guidance:
      "NHS 'Anaphylaxis' and Resuscitation Council UK: swelling of the throat or tongue, trouble breathing or swallowing, feeling faint after a trigger — use an adrenaline auto-injector and call 999; NHS 'Allergies': mild reactions are managed at home.",
    assess(e) {
      if (e.has("ANAPHYLAXIS_WORD", "ADRENALINE_USED"))
        return verdict("emergency", "anaphylaxis or an adrenaline pen used", "ANAPHYLAXIS_WORD");
      if (e.findings("AIRWAY_SWELLING").some((f) => !e.findings("DENTAL_CUE").some((d) => d.sentence === f.sentence)))
        return verdict("emergency", "a swelling throat or tongue", "AIRWAY_SWELLING");
      const allergic = e.has("ALLERGY_TRIGGER", "HIVES", "FACE_SWELLING");
      if (allergic && e.has("THROAT_SWOLLEN"))
        return verdict("emergency", "a swelling throat after an allergen", "THROAT_SWOLLEN");
      // NHS "Anaphylaxis" names trouble swallowing and a hoarse voice with the breathing signs; with a rash
      // alone they are as often a sore throat, so they count after a known trigger.
      const swallowing = e.has("ALLERGY_TRIGGER") && e.has("SWALLOWING", "VOICE");
      const systemic = breathless(e) || swallowing || e.has("FEEL_FAINT", "FAINTED", "COLLAPSED");
      if (allergic && systemic)
        return verdict("emergency", "an allergic reaction with breathing trouble or faintness", "ALLERGY_TRIGGER");
      if (e.has("ALLERGIC_REACTION_NOW"))
        return verdict("urgent", "an allergic reaction under way", "ALLERGIC_REACTION_NOW");
      if (e.has("FACE_SWELLING") && e.has("ALLERGY_TRIGGER")) {
        return verdict("urgent", "swelling of the lips or face after an allergen", "FACE_SWELLING");
      }
      return null;
    },
  },
  {
    id: "collapse_unresponsive",
    label: "Collapse, unconscious or not breathing",
    guidance:
      "NHS 'When to call 999': someone unconscious, not breathing, or who has collapsed; NHS 'Fainting': see a GP after an unexplained faint, same-day care if it came with chest pain, palpitations or on exertion.",
    assess(e) {
      if (e.has("NOT_BREATHING")) return verdict("emergency", "someone not breathing", "NOT_BREATHING");
      const briefly = e.durationMinutes("UNRESPONSIVE") > 0 && e.durationMinutes("UNRESPONSIVE") < 5;
      const recovered = e.has("RECOVERED") || briefly;
      if (e.has("UNRESPONSIVE") && !recovered)
        return verdict("emergency", "someone unconscious or unresponsive", "UNRESPONSIVE");
      if (e.has("COLLAPSED") && !recovered) return verdict("emergency", "a collapse", "COLLAPSED");
      if (e.has("UNRESPONSIVE", "COLLAPSED")) return verdict("urgent", "a collapse with recovery", "COLLAPSED");
      if (e.has("DROWSY") && !e.has("HEAD_INJURY") && (e.child || e.has("CONFUSION")))
        return verdict("emergency", "very drowsy and hard to wake", "DROWSY");
      if (e.has("FAINTED")) {
        const injured = e.has("HEAD_INJURY", "DEEP_WOUND", "MAJOR_BLEEDING", "FRACTURE_SIGNS");
        const worrying = e.has("CHEST_PAIN", "PALPITATIONS", "SHORT_OF_BREATH") || injured || e.pregnant;
        return verdict(worrying || (e.ageYears ?? 0) >= 65 ? "urgent" : "soon", "a faint", "FAINTED");
      }
      return null;
    },
  },
  {
    id: "sepsis",
    label: "Possible sepsis",
    guidance:
      "NICE NG51 'Sepsis' and NHS 'Sepsis': with an infection or fever, any of slurred speech or confusion, mottled or blue skin, no urine for a day, severe breathlessness, or feeling like you might die is an emergency; fever during chemotherapy is an emergency (NICE CG151).",
    assess(e) {
      const infection = e.has("INFECTION", "FEVER", "SHIVERING", "SEPSIS_WORD") || e.feverAtLeast(38);
      if (!infection) return null;
      const low = e.measures.temperatureC !== undefined && e.measures.temperatureC < 36;
      const redFlag =
        e.has("CONFUSION", "MOTTLED_SKIN", "NO_URINE", "VERY_UNWELL", "BREATHING_FAST", "SPEECH_PROBLEM", "DROWSY") ||
        e.has("PALE_BLOTCHY") ||
        low;
      if (redFlag) return verdict("emergency", "an infection with signs of sepsis", "FEVER");
      if (e.has("SEPSIS_WORD")) return verdict("emergency", "suspected sepsis", "SEPSIS_WORD");
      if ((e.has("IMMUNOSUPPRESSED") || e.mentioned("RECENT_CHEMO")) && e.feverAtLeast(38))
        return verdict("emergency", "a fever during chemotherapy or immunosuppression", "IMMUNOSUPPRESSED");
      if (e.has("SHIVERING") && e.feverAtLeast(39)) return verdict("urgent", "a high fever with rigors", "SHIVERING");
      return null;
    },
  },
  {
    id: "meningitis",
    label: "Possible meningitis",
    guidance:
      "NHS 'Meningitis': a rash that does not fade under a glass, or fever with a stiff neck or dislike of bright light — call 999; NICE NG240 bacterial meningitis.",
    assess(e) {
      if (e.has("NON_BLANCHING_RASH"))
        return verdict("emergency", "a rash that does not fade under pressure", "NON_BLANCHING_RASH");
      const stiff = e
        .findings("STIFF_NECK")
        .some((finding) => !e.findings("NECK_STRAIN_CUE").some((cue) => cue.sentence === finding.sentence));
      const fever = e.feverAtLeast(38) || e.has("FEVER");
      if (stiff && (fever || e.has("PHOTOPHOBIA", "VOMITING", "HEADACHE"))) {
        return verdict("emergency", "a stiff neck with fever, headache or dislike of light", "STIFF_NECK");
      }
      if (fever && e.has("PHOTOPHOBIA"))
        return verdict("emergency", "fever with dislike of bright light", "PHOTOPHOBIA");
      if (e.has("MENINGITIS_WORD") && (fever || e.has("HEADACHE", "VOMITING"))) {
        return verdict("emergency", "suspected meningitis", "MENINGITIS_WORD");
      }
      return null;
    },
  },
];
