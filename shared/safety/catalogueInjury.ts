import type { Evidence } from "./evidence";
import type { Presentation, Verdict } from "./levels";

/**
 * Presentations of harm from outside or to oneself, and of seizures and the eyes: what each
 * needs, and what makes it urgent or soon rather than an emergency.
 */
const verdict = (level: Verdict["level"], because: string, concept: string): Verdict => ({ level, because, concept });

/** NICE NG232: after a head injury these need a hospital the same day. */
const headInjuryRisk = (e: Evidence) =>
  e.has("VOMITING", "HEAD_INJURY_RED", "CONFUSION", "FAINTED", "SEVERE") ||
  (e.ageYears !== undefined && (e.ageYears >= 65 || e.ageYears < 1));

export const INJURY_PRESENTATIONS: Presentation[] = [
  {
    id: "suicide_self_harm",
    label: "Thoughts of suicide or self-harm",
    guidance:
      "NHS 'Get help for suicidal thoughts' and the 988 Suicide & Crisis Lifeline: call 999/911 if you have a plan, the means or might act on it; otherwise same-day help from a GP, 111, 988 or Samaritans (116 123).",
    assess(e) {
      const affairs = e.has("AFFAIRS_IN_ORDER") && !e.near("AFFAIRS_IN_ORDER", "PLANNED_EVENT", 0);
      const meansResearched = e.has("MEANS_RESEARCHED") && e.has("PILLS", "SUICIDAL_THOUGHTS");
      if (
        e.has("SUICIDE_PREPARATION") ||
        affairs ||
        meansResearched ||
        (e.has("FAREWELL_MESSAGE") && e.has("UNREACHABLE"))
      )
        return verdict("emergency", "preparations for suicide (pills saved, goodbye notes)", "SUICIDE_PREPARATION");
      if (e.has("SUICIDAL_THOUGHTS")) {
        if (e.has("SAFETY_STATEMENT") && !e.has("SUICIDE_INTENT")) {
          return verdict("urgent", "thoughts of suicide without a plan", "SUICIDAL_THOUGHTS");
        }
        return verdict("emergency", "thoughts of ending one's life", "SUICIDAL_THOUGHTS");
      }
      if (e.has("SELF_HARM") && !e.near("SELF_HARM", "ACCIDENT_CUE", 0)) {
        const serious = e.has("MAJOR_BLEEDING", "OVERDOSE");
        return verdict(serious ? "emergency" : "urgent", "self-harm", "SELF_HARM");
      }
      return null;
    },
  },
  {
    id: "overdose_poisoning",
    label: "Overdose or poisoning (button batteries and magnets included)",
    guidance:
      "NHS 'Poisoning' and 'When to call 999'; NHS and Child Accident Prevention Trust: a swallowed button battery or magnet is an emergency — go to A&E or call 999 at once; poison control (US 1-800-222-1222) or NHS 111 for an accidental extra dose.",
    assess(e) {
      if (e.has("BATTERY_MAGNET")) return verdict("emergency", "a swallowed battery or magnet", "BATTERY_MAGNET");
      const manyPills = (e.measures.pillCount ?? 0) >= 10 && e.has("PILLS");
      if (e.has("OVERDOSE") || manyPills)
        return verdict("emergency", "an overdose", e.has("OVERDOSE") ? "OVERDOSE" : "PILLS");
      if (e.has("HAZARD_SWALLOWED")) {
        const unwell = e.has("VOMITING", "DROWSY", "UNRESPONSIVE", "CANT_BREATHE", "CONFUSION", "SEIZURE");
        return verdict(e.child || unwell ? "emergency" : "urgent", "something poisonous swallowed", "HAZARD_SWALLOWED");
      }
      if (e.has("CHILD_GOT_INTO") && e.child)
        return verdict("emergency", "a child who swallowed medicine or alcohol", "CHILD_GOT_INTO");
      if (e.has("DOUBLE_DOSE")) return verdict("urgent", "an accidental extra dose of a medicine", "DOUBLE_DOSE");
      return null;
    },
  },
  {
    id: "seizure",
    label: "A seizure (fit)",
    guidance:
      "NHS 'What to do if someone has a seizure': call 999 if it is their first seizure and they have not recovered, it lasts more than 5 minutes, one follows another, they are injured or have trouble breathing; Epilepsy Action: a person's usual short seizure with full recovery needs their own plan and a GP review.",
    assess(e) {
      if (!e.has("SEIZURE")) return null;
      const long = e.durationMinutes("SEIZURE") >= 5 || e.has("WONT_STOP");
      const repeated = e.has("SEIZURE_REPEATED");
      const danger = e.has("UNRESPONSIVE", "NOT_BREATHING", "BREATHING_RED", "HEAD_INJURY") || e.pregnant;
      const shortFit = e.durationMinutes("SEIZURE") > 0 && e.durationMinutes("SEIZURE") < 5;
      const recovered = e.has("RECOVERED") || (shortFit && !danger);
      if (long || repeated) return verdict("emergency", "a seizure lasting over 5 minutes or repeated", "SEIZURE");
      if (e.has("SEIZURE_FREQUENCY") && !danger) {
        return verdict("soon", "seizures coming more often than usual", "SEIZURE");
      }
      if (danger && !e.has("RECOVERED")) return verdict("emergency", "a seizure without recovery", "SEIZURE");
      if (recovered) {
        const usual = e.has("KNOWN_EPILEPSY") && !e.has("FIRST_SEIZURE");
        return verdict(usual ? "soon" : "urgent", "a short seizure with recovery", "SEIZURE");
      }
      return verdict("emergency", "a seizure", "SEIZURE");
    },
  },
  {
    id: "head_injury",
    label: "Head injury",
    guidance:
      "NHS 'Head injury and concussion' and NICE NG232: call 999 if not woken, hard to keep awake, a fit, a fall from a height, clear fluid or blood from the ears, weakness, speech or vision problems; go to A&E after being knocked out, vomiting, memory loss, confusion, blood thinners or at 65 and over; a minor bump is cared for at home.",
    assess(e) {
      if (!e.has("HEAD_INJURY")) return null;
      const briefly = e.durationMinutes("UNRESPONSIVE") > 0 && e.durationMinutes("UNRESPONSIVE") < 5;
      const notRecovered = !e.has("RECOVERED") && !briefly;
      const severe =
        (e.has("UNRESPONSIVE") && notRecovered) ||
        e.has("SEIZURE", "NOT_BREATHING", "DROWSY", "HEAD_INJURY_999", "LIMB_WEAKNESS", "SPEECH_PROBLEM") ||
        e.has("BLURRED_VISION", "DOUBLE_VISION", "MAJOR_BLEEDING");
      if (severe) return verdict("emergency", "a head injury with a sign that needs 999", "HEAD_INJURY");
      if (headInjuryRisk(e) || e.has("UNRESPONSIVE"))
        return verdict("urgent", "a head injury with warning signs", "HEAD_INJURY");
      return verdict("self_care", "a minor knock to the head", "HEAD_INJURY");
    },
  },
  {
    id: "severe_bleeding",
    label: "Severe bleeding",
    guidance:
      "NHS 'When to call 999' (bleeding that will not stop) and St John Ambulance / British Red Cross severe-bleeding first aid; NHS 'Cuts and grazes': a deep or gaping cut needs same-day care; NHS 'Nosebleed': A&E after 10–15 minutes of pressure.",
    assess(e) {
      // A nosebleed that will not stop is same-day care (NHS), not an ambulance, unless the person is faint.
      const fromNose = e
        .findings("MAJOR_BLEEDING")
        .every((f) => e.findings("NOSEBLEED").some((n) => n.sentence === f.sentence));
      if (e.has("MAJOR_BLEEDING") && fromNose && !e.has("FEEL_FAINT", "FAINTED", "COLLAPSED")) {
        return verdict("urgent", "a nosebleed that will not stop", "NOSEBLEED");
      }
      if (e.has("MAJOR_BLEEDING")) return verdict("emergency", "heavy bleeding that will not stop", "MAJOR_BLEEDING");
      if (e.has("DEEP_WOUND")) return verdict("urgent", "a deep or gaping wound", "DEEP_WOUND");
      if (e.has("NOSEBLEED")) {
        const long = e.durationMinutes("NOSEBLEED") >= 15 || e.has("WONT_STOP") || e.has("HEAD_INJURY_RED");
        return long ? verdict("urgent", "a nosebleed that will not stop", "NOSEBLEED") : null;
      }
      return null;
    },
  },
  {
    id: "child_burns",
    label: "A burn or scald in a child, or a serious burn",
    guidance:
      "NHS 'Burns and scalds': go to A&E for burns in children, chemical and electrical burns, large or deep burns, and burns to the face, hands or genitals; call 999 for burns with breathing trouble or smoke inhalation.",
    assess(e) {
      if (!e.has("BURN") || (e.has("SUNBURN") && !e.has("BURN_SERIOUS"))) return null;
      const airway = e.near("BURN", "CANT_BREATHE") || e.findings("BURN_SERIOUS").length > 1;
      if (airway) return verdict("emergency", "a serious burn with breathing trouble", "BURN");
      if (e.child) return verdict(e.has("BURN_SERIOUS") ? "emergency" : "urgent", "a burn or scald in a child", "BURN");
      if (e.has("BURN_SERIOUS")) return verdict("urgent", "a large, deep, chemical or electrical burn", "BURN");
      return verdict("self_care", "a small burn", "BURN");
    },
  },
  {
    id: "sudden_vision_loss",
    label: "Sudden loss of vision",
    guidance:
      "NHS 'When to go to A&E' and RNIB: sudden loss of sight is an emergency; new flashes, floaters or a shadow over the vision need an eye assessment the same day (NHS 'Retinal detachment').",
    assess(e) {
      if (e.has("SUDDEN_VISION_LOSS")) return verdict("emergency", "sudden loss of vision", "SUDDEN_VISION_LOSS");
      if (e.has("DOUBLE_VISION") && e.has("SUDDEN"))
        return verdict("emergency", "sudden double vision", "DOUBLE_VISION");
      if (e.has("FLASHES_FLOATERS")) return verdict("urgent", "new flashes or floaters", "FLASHES_FLOATERS");
      if (e.has("DOUBLE_VISION")) return verdict("urgent", "double vision", "DOUBLE_VISION");
      return null;
    },
  },
  {
    id: "carbon_monoxide",
    label: "Carbon monoxide poisoning",
    guidance:
      "NHS 'Carbon monoxide poisoning': with symptoms (headache, dizziness, nausea, drowsiness, several people ill, better away from home) leave the place and get urgent help — call 999 if severe; the gas emergency line for the appliance.",
    assess(e) {
      if (!e.has("CO_SOURCE")) return null;
      const symptoms = e.has(
        "HEADACHE",
        "HEADACHE_MILD",
        "DIZZY",
        "FEEL_FAINT",
        "GUT_UPSET",
        "VOMITING",
        "DROWSY",
        "CONFUSION",
        "TIRED",
      );
      const severe = e.has("UNRESPONSIVE", "COLLAPSED", "CONFUSION", "SEIZURE", "CANT_BREATHE", "CHEST_PAIN");
      if (severe || symptoms)
        return verdict("emergency", "symptoms with a possible carbon monoxide source", "CO_SOURCE");
      return null;
    },
  },
];
