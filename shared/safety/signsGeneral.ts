/**
 * Qualifiers, everyday symptoms and idioms. Qualifiers (sudden, severe, spreading, won't stop,
 * getting worse) change a level; everyday symptoms carry a baseline level when no catalogue
 * presentation fires (generalRules.ts); idioms and medicine names block the concepts they overlap
 * ("giving me a heart attack", "my seizure medication"). Same pattern syntax as signsHeartLungs.ts.
 */
export const QUALIFIERS: Record<string, string[]> = {
  SUDDEN: ["sudden*|abrupt*|out of nowhere|out of the blue|all of a sudden|came on fast|just now|=instantly"],
  SEVERE: [
    "severe*|excruciat*|unbearable|agony|agonis*|agoniz*|worst|terrible|horrendous|intense|crippling|screaming",
    "10/10|10 out of 10|ten out of ten|9 out of 10|9/10",
    "really|so|very|extremely & =bad|painful ~2",
    "never & pain|felt|had & like this ~6",
    "agony|=agonising|=agonizing",
    "double* over|can not stand up|can not move|can not walk|can not sleep for the pain",
  ],
  /** The strong words only: general rules escalate a symptom on these, not on "really bad". */
  SEVERE_STRONG: [
    "severe*|excruciat*|unbearable|agony|agonis*|agoniz*|worst|crippling|screaming|10/10|10 out of 10|ten out of ten",
    "double* over|can not stand up|can not move|can not walk|can not sleep for the pain",
  ],
  MILD: ["mild*|slight*|bit of|little|minor|small|niggl*|=tiny"],
  WONT_STOP: [
    "not & stop*|settle|ease|go away|going away ~3",
    "non stop|nonstop|constant*|continuous*|still going|keeps going",
  ],
  WORSENING: [
    "getting worse|get worse|worse and worse|worsening|not getting better|not improving|not get better|spreading fast|spread* quickly",
  ],
  RECURRING: [
    "keep* coming back|come* and go*|on and off|recurr*|keeps happening|again and again|every day|most days|more often|more and more",
  ],
  AGE_CHILD_WORD: [
    "baby|infant|newborn|toddler|child|kid|son|daughter|boy|girl|=little one|grandson|granddaughter|nephew|niece",
  ],
};

/** Everyday complaints, each with the level it gets when nothing more serious is found. */
export const EVERYDAY_SYMPTOMS: Record<string, { level: "soon" | "self_care"; patterns: string[] }> = {
  COLD: {
    level: "self_care",
    patterns: ["=cold|runny nose|blocked nose|stuffy nose|stuffy|sneez*|congest*|sniffl*|head cold"],
  },
  SORE_THROAT: { level: "self_care", patterns: ["throat & sore|scratchy|hurt*|pain* ~3", "tonsil*"] },
  COUGH: { level: "self_care", patterns: ["cough*"] },
  HEADACHE_MILD: { level: "self_care", patterns: ["headache*|migraine*", "head & hurt*|ache|pound*|throb* ~3"] },
  FEVER_MILD: { level: "self_care", patterns: ["fever*|feverish|temperature|=hot"] },
  GUT_UPSET: {
    level: "self_care",
    patterns: [
      "diarrh*|the runs|vomit*|throw* up|threw up|nause*|feel sick|feeling sick|queasy|upset stomach|food poisoning|stomach bug|tummy bug",
    ],
  },
  TUMMY_ACHE: {
    level: "self_care",
    patterns: ["stomach|tummy|belly|abdom* & ache*|pain*|hurt*|cramp*|bloat* ~3", "bloat*|wind|gas"],
  },
  INDIGESTION: { level: "self_care", patterns: ["heartburn|indigestion|reflux|acid"] },
  CONSTIPATION: { level: "self_care", patterns: ["constipat*|can not poo|not pooed"] },
  ACHES: {
    level: "self_care",
    patterns: [
      "back|neck|shoulder|knee|hip|ankle|wrist|elbow|foot|feet|leg|arm|muscle*|joint* & pain*|ache*|hurt*|sore|stiff|=killing ~3",
      "sprain*|strain*|pulled * muscle|pulled something|tweaked something|twisted * ankle|sciatica",
    ],
  },
  SKIN: {
    level: "self_care",
    patterns: [
      "rash|itch*|spot*|pimple*|acne|eczema|hive*|bite*|sting*|blister*|bruise*|sunburn*|cold sore|wart*|dandruff",
    ],
  },
  MINOR_INJURY: {
    level: "self_care",
    patterns: ["cut|graze|scrape|nick|splinter|stubbed & finger|toe|knee|hand|small|minor|little ~4", "paper cut"],
  },
  EAR_EYE: {
    level: "self_care",
    patterns: [
      "ear & ache|pain*|hurt*|block* ~3",
      "earache",
      "eye* & red|itchy|sore|sticky|watery|gritty ~3",
      "conjunctivitis|stye",
    ],
  },
  TOOTH: {
    level: "self_care",
    patterns: [
      "tooth|teeth|gum*|wisdom & ache|pain*|hurt*|sore|swollen|agony ~3",
      "toothache",
      "jaw|cheek & swell*|swollen ~3",
    ],
  },
  MINOR_BLEED: { level: "self_care", patterns: ["bleed*|=bled|nosebleed*"] },
  MEMORY: {
    level: "soon",
    patterns: ["forgetful*|forgetting things|dementia", "memory & poor|bad|worse|loss|problem*|going ~3"],
  },
  BOWEL_CHANGE: { level: "soon", patterns: ["change & bowel|poo*|stool* ~3"] },
  VOICE: { level: "self_care", patterns: ["hoarse*|lost my voice|losing my voice|croaky"] },
  TIRED: { level: "self_care", patterns: ["tired*|exhaust*|fatigue*|no energy|worn out|run down"] },
  SLEEP: { level: "self_care", patterns: ["can not sleep|insomnia|trouble sleeping|not sleeping"] },
  DIZZY: { level: "self_care", patterns: ["dizz*|lightheaded|light-headed|vertigo|room spinning"] },
  PERIOD: { level: "self_care", patterns: ["period & pain*|cramp*|heavy|late|irregular ~3", "menstrual"] },
  HANGOVER: { level: "self_care", patterns: ["hangover|hungover|too much to drink|drank too much"] },
  HAY_FEVER: { level: "self_care", patterns: ["hay fever|hayfever|pollen|allergy & itchy|sneez* ~4"] },
  URINE: {
    level: "soon",
    patterns: ["burn*|sting*|pain*|hurt* & pee|wee|urinat*|pass* urine ~4", "urine infection|water infection|cystitis"],
  },
  LUMP: {
    level: "soon",
    patterns: [
      "lump*|swelling & breast|neck|armpit|groin|testic*|under ~4",
      "lump*",
      "mole & change*|bigger|bleed*|itchy|dark* ~4",
    ],
  },
  WEIGHT_LOSS: {
    level: "soon",
    patterns: [
      "lost|losing|lose & weight|stone|kilo*|kg|pounds|lbs & without|not trying|unexplained|unintentional ~6",
      "unexplained weight loss|night sweat*",
    ],
  },
  BLOOD_IN_URINE: { level: "soon", patterns: ["blood & pee|wee|urine ~4", "haematuria|hematuria"] },
  SWALLOWING: {
    level: "soon",
    patterns: ["difficult*|trouble|hard|hurt* & swallow* ~3", "food|it & stuck & swallow*|throat|chest ~5"],
  },
  MOOD: {
    level: "soon",
    patterns: [
      "feel* & down|low|empty|flat|numb inside ~2",
      "can not enjoy|no interest in anything|lost interest|no motivation",
      "depress*|anxious|anxiety|panic attack*|low mood|hopeless|worthless|burn* out|burnout|overwhelm*",
    ],
  },
  PALPITATIONS_MILD: { level: "soon", patterns: ["palpitation*|heart & flutter*|skip*|race|racing ~3"] },
  NUMB_TINGLE: { level: "soon", patterns: ["numb|numbness|=numbed|tingl*|pins and needles"] },
  SWOLLEN_LEG: {
    level: "soon",
    patterns: [
      "calf & swell*|swollen|red|hot|pain* ~4",
      "=ankles|=legs|=feet & swell*|swollen|puffy ~3",
      "one leg & swell*|swollen ~3",
    ],
  },
  GENERAL_UNWELL: {
    level: "self_care",
    patterns: ["unwell|poorly|ill|under the weather|feel* rough|feel* awful|=sick"],
  },
  PAIN_OTHER: { level: "self_care", patterns: ["pain*|ache*|hurt*|sore|agony|twinge*|cramp*"] },
};

/** Idioms and medicine names whose words are not symptoms; matches that overlap them are dropped. */
export const BLOCKERS: Record<string, string[]> = {
  IDIOM: [
    "give*|gave|giving|nearly|almost|about to|going to & heart attack ~3",
    "=kill me|will kill me|going to kill me|gonna kill me|would kill me|murder me",
    "dying to|dying for|die of boredom|bored to death|die of embarrassment|die laughing|died laughing|to die for|dying of boredom",
    "pain in the neck|pain in the butt|pain in the arse|pain in the ass",
    "took my breath away|breathtaking|heartbroken|broken heart|heartache",
    "fever pitch|cold feet|sick of|sick and tired|sick to death|choked up|break a leg|killing it|lose my mind|losing my mind|out of my mind",
    "fit and healthy|keep fit|get fit|fit in|fits in|fit into|fitness|=fitted|=fitting room|fit the|fit for",
    "stroke of luck|stroke of genius|=stroking|brush stroke|=strokes",
    "end it with|ending it with|end things with|ended it with|end the relationship|end my contract|end my lease",
    "food poisoning|poison ivy",
    "confusion|confused|confusing & about|over|by & dose|dosage|instructions|label|bill|form|letter|appointment|insurance|paperwork|medication*|prescription|rules|guidance|advice|app ~3",
    "pass* out|faint*|die|died|chok*|wet myself & laugh* ~3",
    "skip* a beat when|heart skipped a beat|heart missed a beat",
    "heart attack & risk|prevent|after|recovery|survivor|rehab ~3",
    "blood test*|blood donation|bloodwork",
    "burning up the|on fire at|fire drill",
  ],
  MEDICINE_NAME: [
    "seizure*|epilep*|fit & medic*|med|meds|tablet*|drug*|pill*|prescription ~3",
    "allergy & medic*|tablet*|pill*|antihistamine ~3",
    "pain & relief|killer*|medic* ~2",
  ],
};
