/**
 * Concepts for the heart, breathing, allergy and the aorta, in conceptMatch.ts's pattern syntax
 * (" & " joins terms that must all occur within the window, "|" gives alternatives, "*" a prefix).
 * They describe what a person says, not diagnoses: the catalogue (catalogue*.ts) combines them.
 */
export const HEART_LUNG_SIGNS: Record<string, string[]> = {
  CHEST_PAIN: [
    "chest & pain*|ache*|hurt*|sore|burn*|tight*|pressure|heavy|heaviness|crush*|squeez*|discomfort|weight|band|vice|clamp*|agony|=killing ~7",
    "heart & hurt*|pain*|ache* ~3",
    "clutch* & chest|heart ~3",
    "pain*|pressure|ache & breastbone|sternum ~5",
    "angina",
  ],
  /** The qualities NHS "heart attack" names: pressure, heaviness, tightness, squeezing. */
  CHEST_PRESSURE_QUALITY: [
    "chest & crush*|squeez*|heavy|heaviness|pressure|tight*|elephant|vice|clamp*|band|weight ~8",
    "elephant & sit*|sat|standing|on ~4",
    "sit*|sat|stand*|standing|=pressing|weight|crush* & on & chest ~4",
    "chest & in a vice|in a clamp|being squashed|being crushed ~3",
  ],
  PAIN_SPREADING: [
    "spread*|radiat*|go|shoot*|travel*|move*|down|into|up & arm|arms|jaw|neck|shoulder|back ~5",
    "left arm|jaw & ache*|pain*|hurt*|numb|numbness|=numbed|heavy|tingl* ~4",
  ],
  CARDIAC_COMPANION: [
    "sweat*|clammy|drench*|cold sweat",
    "grey|gray|ashen",
    "=going to die|=gonna die|sense of doom|impending doom",
  ],
  HEART_ATTACK_NOW: [
    "=having & heart attack ~4",
    "heart attack & now|right now|happening ~4",
    "cardiac arrest",
    "=having & angina attack ~3",
  ],
  /** Look-alike discriminators: chest symptoms that point to reflux or a strained muscle. */
  REFLUX_CUE: [
    "heartburn|reflux|indigestion|acid|gerd|antacid|gaviscon|rennie|omeprazole|lansoprazole",
    "after & eat*|meal*|dinner|lunch|curry|spicy|food ~4",
    "burp*|belch*",
  ],
  CHEST_WALL_CUE: [
    "press & on it|hurt*|sore|tender ~4",
    "tender & touch ~3",
    "gym|workout|lifting|lift weights|bench press|pulled a muscle|pull* & muscle ~4",
    "when & cough|sneeze|twist|move|turn ~3",
    "from|after|with & cough*|coughing|cold|chesty|chest infection|flu ~3",
    "=sharp & breathe in|deep breath ~5",
  ],
  PALPITATIONS: ["palpitation*", "heart & race|racing|pound*|flutter*|skip*|beat* fast|beat* really fast|irregular ~4"],
  CANT_BREATHE: [
    "can not|unable|struggl*|hard|difficult|difficulty|trouble|fight*|labour*|labor*|barely|hardly & breathe|breathing|air ~4",
    "gasp*",
    "can not & catch|get & breathe|air ~4",
    "dyspno*|dyspnea|respiratory distress|suffocat*",
    "breathing & difficult*|laboured|labored|noisy|very fast|really fast|=wheezy ~3",
  ],
  SHORT_OF_BREATH: [
    "short* & breathe ~3",
    "breathless*",
    "out of breathe",
    "winded",
    "=puffed out|out of puff|=puffed & stair*|hill*|walk* ~4",
  ],
  BREATH_EXERTION_CUE: [
    "walk*|climb*|going up|go up & stair*|hill*|slope ~3",
    "after & run*|jog*|stair*|exercise|gym|climb*|walk* ~4",
    "when & run*|exercis*|climb*|walk* ~3",
    "while|during & walk*|run*|exercis*|climb*|garden*|shovel*|dig*|jog* ~3",
    "unfit|out of shape",
  ],
  /** Breathless at rest or after a few steps: not ordinary exertion (NHS "Shortness of breath"). */
  MINIMAL_EXERTION: [
    "few steps|a few yards|couple of steps|to the toilet|to the bathroom|to the kitchen|getting dressed|at rest|while resting|sitting still|lying down|when i talk|talking",
  ],
  BREATHING_RED: [
    "lip*|face|tongue|finger*|skin & blue|grey|gray|purple ~4",
    "can not & speak|talk|finish|say & sentence*|word*|properly ~5",
    "only|barely|hardly & word*|sentence* & out|get|say|speak|manage ~5",
    "rib* & suck*|pull*|sink* ~4",
    "grunt*",
    "neck & suck* ~3",
    "breathe & very fast|really fast|rapid* ~3",
  ],
  NOT_BREATHING: [
    "not & =breathing ~0",
    "stop* & =breathing|=breathe ~1",
    "no & breathing|pulse ~0",
    "=turned|=turning|go|gone & blue ~2",
  ],
  CHOKING: ["chok*", "something|food|bone & stuck & throat|windpipe ~6"],
  ASTHMA_ATTACK: ["asthma & attack|flare|bad ~3"],
  INHALER_FAILING: ["inhaler|puffer|ventolin|salbutamol|blue pump & not|no & help*|work*|relief|touch*|difference ~8"],
  WHEEZE: ["wheez*"],
  LOW_OXYGEN_WORDS: ["oxygen & low|drop* ~3", "hypox*"],
  ALLERGY_TRIGGER: [
    "allerg*",
    "peanut*|cashew*|walnut*|almond*|shellfish|prawn*|shrimp|sesame|nut allergy|satay|=nuts",
    // A new product on the skin or in the mouth is the usual trigger of a contact reaction (NHS "Allergies").
    "new|trying|tried|after & cream|lotion|soap|shampoo|make up|makeup|hair dye|face wash|washing powder|perfume|lipstick|lip balm|moisturi*|sun cream|suncream|deodorant|nail varnish ~3",
    "bee|wasp|hornet & sting|stung ~4",
    "=stung",
    "penicillin|amoxicillin|antibiotic*|new medic*|new tablet*",
  ],
  AIRWAY_SWELLING: [
    "angioedema|stridor|laryngeal oedema|laryngeal edema",
    "throat & clos*|closing|tight*|narrow*|shut ~6",
    "tongue & swell*|swollen|big|thick|fat|huge|puff*|massive|bigger ~4",
  ],
  /** Numbness from a dental anaesthetic makes the tongue and lips feel big without any swelling. */
  DENTAL_CUE: ["dentist|dental|filling|anaesthetic|anesthetic|numbing injection|tooth out|extraction"],
  /** A swollen throat is tonsillitis as often as anaphylaxis: it counts only with an allergic trigger. */
  THROAT_SWOLLEN: ["throat & swell*|swollen|puffy ~3"],
  FACE_SWELLING: ["lip*|face|mouth|eye*|eyelid* & swell*|swollen|puff*|balloon* ~4"],
  HIVES: ["hive*|urticaria|welt*", "rash & all over|everywhere|spread* ~4"],
  /** A pen given, not one owned: "my EpiPen expires next month" is a prescription question. */
  ADRENALINE_USED: [
    "use|used|using|give|gave|given|jab*|inject*|administer*|stab*|had to & epipen|adrenaline|epinephrine|auto injector|jext|emerade ~4",
  ],
  /** "I think I'm having an allergic reaction": a reaction under way, details not given. */
  ALLERGIC_REACTION_NOW: ["=having & allergic reaction ~3", "allergic reaction & now|right now|happening ~3"],
  ANAPHYLAXIS_WORD: ["anaphyla*", "allergic reaction & bad|severe|serious|big ~4"],
  TEARING_PAIN: [
    "=tearing|=ripping|=ripped|=tore & pain|feel*|sensation|chest|back ~5",
    "between & shoulder blade*|scapula*|scapulae & pain|sudden|severe|agony ~6",
    "knife|=tore|=torn|=ripped & through & back|=him|=her|=me ~4",
    "aortic dissection|dissect*",
  ],
  CONNECTIVE_TISSUE_RISK: ["marfan*|aneurysm|high blood pressure|hypertension"],
};
