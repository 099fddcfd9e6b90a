/**
 * The red-flag signs the triage check looks for, in our own words, following public guidance:
 * - NHS, "When to call 999" and "When to go to A&E" (nhs.uk/nhs-services/urgent-and-emergency-care-services);
 * - NHS, "Meningitis: symptoms" (fever with a stiff neck; a rash that does not fade under a glass);
 * - NHS and the American Stroke Association, "Stroke: FAST" (face, arms, speech, time);
 * - NHS, "Heart attack" and "Anaphylaxis"; NHS, "Severe bleeding" first aid;
 * - WHO, "Pregnancy, Childbirth, Postpartum and Newborn Care: a guide for essential practice"
 *   (IMPAC), danger signs in pregnancy: bleeding, severe headache or blurred vision, convulsions,
 *   fever, severe abdominal pain, reduced fetal movement, waters breaking early;
 * - 988 Suicide & Crisis Lifeline and NHS "Get help for suicidal thoughts".
 * A sign fires when every one of its groups matches, each group being alternatives. Patterns run
 * on lowercased text with straight apostrophes.
 */
export const RED_FLAG_CATEGORIES = [
  "meningitis",
  "chest_pain",
  "breathing",
  "stroke",
  "pregnancy",
  "seizure",
  "bleeding",
  "anaphylaxis",
  "self_harm",
  "unconscious",
  "urgent_symptom",
] as const;
export type RedFlagCategory = (typeof RED_FLAG_CATEGORIES)[number];

export interface RedFlag {
  id: string;
  label: string;
  category: RedFlagCategory;
  /** Every group must match somewhere in the text, not negated. */
  groups: string[][];
}

const FEVER = [
  "fever",
  "febrile",
  "high temperature",
  "temperature of (?:3[89]|4[0-2])",
  "\\b(?:3[89]|4[0-2])(?:[.,]\\d)? ?(?:°|degrees)? ?c\\b",
  "burning up",
  "pyrexi",
  "pyrexial",
];
const STIFF_NECK = [
  "stiff neck",
  "neck (?:is |feels )?(?:really |very )?stiff",
  "neck stiffness",
  "can't (?:bend|touch|move) my (?:chin|neck|head)",
  "(?:hurts|pain(?:ful)?) to (?:bend|move) my neck",
  "nuchal rigidity",
  "meningism",
];
/** Words that put a message in pregnancy (the WHO danger signs apply there). */
export const PREGNANCY_CONTEXT = [
  "pregnan",
  "baby is due",
  "due date",
  "expecting a baby",
  "trimester",
  "my bump",
  "fetal",
  "foetal",
  "(?:baby|babies) (?:isn't|is not|hasn't been|has stopped|stopped|not) moving",
  "my midwife",
];

export const RED_FLAGS: RedFlag[] = [
  { id: "fever_stiff_neck", label: "Fever with a stiff neck", category: "meningitis", groups: [FEVER, STIFF_NECK] },
  {
    id: "non_blanching_rash",
    label: "A rash that does not fade under pressure",
    category: "meningitis",
    groups: [
      [
        "rash (?:that )?(?:doesn't|does not|won't|will not|didn't|did not) (?:fade|go away when)",
        "non[- ]?blanching",
        "rash\\b.{0,40}\\b(?:glass|tumbler)",
        "purple (?:spots|rash|blotches)",
        "purpura",
      ],
    ],
  },
  {
    id: "chest_pain",
    label: "Chest pain or pressure",
    category: "chest_pain",
    groups: [
      [
        "chest pains?",
        "pain (?:in|across) (?:my |the )?chest",
        "chest (?:tightness|pressure|is tight|feels tight)",
        "tight(?:ness)? (?:in|across) (?:my |the )?chest",
        "crushing (?:pain|chest|feeling)",
        "pressure (?:in|on) (?:my |the )?chest",
        "heart attack",
      ],
    ],
  },
  {
    id: "breathing_difficulty",
    label: "Difficulty breathing",
    category: "breathing",
    groups: [
      [
        "can't breathe",
        "cannot breathe",
        "can not breathe",
        "unable to breathe",
        "struggling to breathe",
        "hard to breathe",
        "(?:difficulty|trouble|problems?) breathing",
        "short(?:ness)? of breath",
        "breathless",
        "gasping for (?:air|breath)",
        "can't (?:catch|get) my breath",
        "lips (?:are |look |turning |turned )?(?:blue|grey|gray)",
        "choking",
        "dyspno?ea",
        "respiratory distress",
      ],
    ],
  },
  {
    id: "stroke_signs",
    label: "Signs of a stroke",
    category: "stroke",
    groups: [
      [
        "face (?:is )?droop",
        "drooping (?:face|mouth|eyelid|smile)",
        "one side of (?:my |his |her |their |the )?face",
        "slurred speech",
        "slurring",
        "speech (?:is |was )?slurred",
        "can't (?:speak|talk) properly",
        "(?:arm|leg) (?:is |went |has gone )?(?:suddenly )?(?:weak|numb|limp)",
        "weak(?:ness)? (?:in|of|on) (?:one|my|the) (?:arm|leg|side)",
        "numb(?:ness)? (?:on|in|down) one side",
        "sudden (?:confusion|numbness|weakness)",
        "worst headache (?:of|in) my life",
        "thunderclap headache",
        "sudden,? severe headache",
        "sudden (?:loss of|lost) (?:vision|sight)",
        "sudden(?:ly)? (?:lost|lose|losing) (?:my |the )?(?:vision|sight)",
        "facial droop",
        "dysarthria",
        "hemiparesis",
        "aphasia",
      ],
    ],
  },
  {
    id: "pregnancy_danger_sign",
    label: "A danger sign in pregnancy",
    category: "pregnancy",
    groups: [
      PREGNANCY_CONTEXT,
      [
        "bleeding",
        "severe headache",
        "bad headache",
        "blurr(?:ed|y) vision",
        "vision (?:is )?blurr",
        "seeing (?:spots|flashes|stars)",
        "swelling (?:of|in) (?:my )?(?:face|hands)",
        "(?:face|hands) (?:are |is )?(?:very )?swollen",
        "(?:baby|babies) (?:isn't|is not|hasn't been|has stopped|stopped|not) moving",
        "reduced (?:fetal |foetal |baby )?movements?",
        "moving less",
        "waters? (?:has |have )?(?:broken|broke)",
        "leaking fluid",
        "\\bfits?\\b",
        "convuls",
        "seizure",
        "severe (?:abdominal|tummy|stomach|belly) pain",
        "fever",
        "high temperature",
      ],
    ],
  },
  {
    id: "seizure",
    label: "A seizure",
    category: "seizure",
    groups: [
      [
        "seizure(?!s? (?:medication|medicine|drug|meds|tablets))",
        "having a fit",
        "had a fit",
        "fitting",
        "convuls",
        "epileptic fit",
        "tonic[- ]clonic",
        "status epilepticus",
      ],
    ],
  },
  {
    id: "severe_bleeding",
    label: "Severe bleeding",
    category: "bleeding",
    groups: [
      [
        "bleeding (?:that )?(?:won't|will not|doesn't|does not|can't be|cannot be) stop",
        "won't stop bleeding",
        "heavy bleeding",
        "bleeding heavily",
        "severe bleeding",
        "losing (?:a lot of|lots of) blood",
        "(?:vomiting|throwing up|threw up|vomited) blood",
        "coughing (?:up )?blood",
        "blood in (?:my )?vomit",
        "black,? tarry (?:stools?|poo|poop)",
        "tarry stools?",
        "ha?ematemesis",
        "mela?ena",
        "ha?emoptysis",
        "haemorrhag",
        "hemorrhag",
      ],
    ],
  },
  {
    id: "anaphylaxis",
    label: "A severe allergic reaction",
    category: "anaphylaxis",
    groups: [
      [
        "anaphyla",
        "throat (?:is |feels )?(?:closing|swelling|swollen|tight)",
        "swollen (?:throat|tongue|lips)",
        "(?:tongue|lips|throat) (?:are |is )?swell",
        "swelling (?:of|in) (?:my )?(?:throat|tongue|lips)",
        "allergic reaction\\b.{0,40}\\b(?:breath|swell|throat)",
        "epipen",
      ],
    ],
  },
  {
    id: "self_harm",
    label: "Thoughts of suicide or self-harm",
    category: "self_harm",
    groups: [
      [
        "kill myself",
        "end my (?:own )?life",
        "take my (?:own )?life",
        "suicidal",
        "thoughts of (?:suicide|killing myself|self[- ]harm|ending (?:it|my life))",
        "want to die",
        "don't want to (?:live|be alive|wake up)",
        "self[- ]harm",
        "(?:hurt|hurting|cut|cutting) myself",
        "better off dead",
        "(?:took|taken|take) an overdose",
      ],
    ],
  },
  {
    id: "unconscious",
    label: "Unconscious or unresponsive",
    category: "unconscious",
    groups: [
      [
        "unconscious",
        "unresponsive",
        "won't wake up",
        "can't wake (?:him|her|them|up)",
        "not breathing",
        "collapsed",
        "passed out",
      ],
    ],
  },
];
