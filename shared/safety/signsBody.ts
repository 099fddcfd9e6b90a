/**
 * Concepts for infection and sepsis, the gut, pregnancy, diabetes, the back, testicles, bleeding
 * and burns. Same pattern syntax as signsHeartLungs.ts.
 */
export const BODY_SIGNS: Record<string, string[]> = {
  FEVER: [
    "fever*|febrile|pyrex*|feverish",
    "temperature & high|raised|spik*|hot|went up|over ~3",
    "burn* up|burning up",
    "have|has|had|got|running|=with & a temperature ~1",
    "hot & to touch|to the touch ~3",
  ],
  SHIVERING: ["shiver*|rigor*|uncontrollable shaking|teeth chatter*", "shaking & cold|chill*|freezing ~4"],
  INFECTION: [
    "infect*|septic|cellulitis|pneumonia|abscess|pus|ooz*",
    "wound|cut|bite & red|hot|swell*|swollen|pus|ooz*|spread* ~4",
    "flu|covid|virus|bug going round",
  ],
  SEPSIS_WORD: ["sepsis|septic shock|blood poisoning"],
  IMMUNOSUPPRESSED: ["chemo|chemotherapy|immunosuppress*|neutropeni*|no immune system|low immune|transplant"],
  /** Chemotherapy in the last few weeks: the time of neutropenic sepsis, even said in the past tense (NICE CG151). */
  RECENT_CHEMO: [
    "chemo|chemotherapy & last week|this week|days ago|week ago|weeks ago|yesterday|recently|=cycle|=round|=session|=dose ~6",
  ],
  MENINGITIS_WORD: ["meningitis|meningococcal|meningococcus"],
  /** NICE NG143 red features in a baby or young child. */
  INFANT_RED: [
    // "Walks with a limp" is not floppy; "gone limp" and "like a rag doll" are.
    "floppy|gone limp|went limp|all limp|limp as|ragdoll|rag doll",
    "not & feed*|feeding|drink*|take * bottle|take * feed*|latch* ~4",
    "refus* & feed*|bottle|breast|milk|drink* ~3",
    "weak|high pitch*|high-pitched|strange & cry* ~4",
    "=moaning|=whimpering",
    "bulg* & soft spot|fontanel* ~4",
    "soft spot|fontanel* & bulg*|swell*|sunken ~4",
    "grunt*",
  ],
  MOTTLED_SKIN: [
    "mottl*",
    "blotchy & skin|leg*|arm*|body ~5",
    "skin & blue|grey|gray|ashen|pale & very|really|gone|look* ~5",
  ],
  /** Pale and blotchy: a sepsis sign with a fever or an infection, ordinary after a warm bath. */
  PALE_BLOTCHY: ["pale|grey|gray|ashen & blotch* ~3"],
  NO_URINE: [
    "not & pee|peed|wee|weed|urinat*|pass* urine|passed water|toilet ~5",
    "no & urine|wee|pee|wet nappy|wet nappies ~3",
    "dry nappy|dry nappies|dry diaper*",
  ],
  VERY_UNWELL: [
    "=going to die|=gonna die|feel like dying|i be dying|i am dying|worst i have ever felt|never felt this ill|never felt this unwell",
    "very|extremely|really|seriously|so & unwell|ill|poorly ~2",
  ],
  BREATHING_FAST: ["breath* & fast|quick*|rapid* ~3", "=panting"],
  VOMITING: ["vomit*|throw* up|threw up|throwing up|=puke*|being sick|been sick", "=sick & keep|times ~4"],
  VOMIT_BLOOD: [
    "vomit*|throw* up|threw up|throwing up|sick|puke* & blood|bloody|coffee ground*|red stuff ~6",
    "vomit*|throw* up|threw up|throwing up|puke* & dark brown|gritty|grainy|granul* ~6",
    "coffee ground*",
    "haematemesis|hematemesis",
  ],
  /** Iron tablets and bismuth turn poo black without bleeding. */
  IRON_CUE: ["iron tablet*|iron supplement*|ferrous|bismuth|pepto|liquorice|licorice|blueberr*|black pudding"],
  COUGH_BLOOD: ["cough* & blood ~4", "haemoptysis|hemoptysis"],
  BLACK_STOOL: ["black|tarry|tar & poo*|stool*|bowel movement*|poop*|motion*|=pooing ~6", "melaena|melena"],
  RECTAL_BLOOD: [
    "blood & poo*|stool*|toilet|bum|bottom|wipe|paper|rectum|back passage ~5",
    "rectal bleed*",
    "bright red & tissue|toilet paper|loo roll|toilet|poo*|stool* ~6",
    "bleed* & bum|bottom|rectum|back passage ~4",
  ],
  DIARRHOEA: ["diarrh*|the runs|loose stool*|watery poo*|the trots", "poo*|stool* & loose*|runny|watery ~3"],
  ABDOMINAL_PAIN: [
    "abdom*|stomach|tummy|belly|pelvi*|groin & pain*|cramp*|hurt*|ache*|agony ~4",
    "stomach ache|tummy ache|bellyache",
  ],
  PREGNANT: [
    "pregnan*|trimester|gestation|antenatal|weeks along|my bump|my midwife|due date",
    "=expecting & baby|twins|=i|=am ~3",
    "baby be due|baby is due",
    "miscarr*",
  ],
  /** Words that put a message in early pregnancy, before the person says "pregnant" (ectopic). */
  EARLY_PREGNANCY_CUE: ["positive & test|pregnancy test ~3", "missed & period ~3", "period & late|overdue ~3"],
  MISCARRIAGE: ["=having & miscarriage ~3", "=miscarrying|losing the baby|losing my baby"],
  VAGINAL_BLEEDING: [
    "lose|losing|lost & blood ~3",
    "bleed*|spotting|=spotted|blood loss|passing clot*|clots",
    "blood & vagina*|down below|pad*|knicker*|underwear ~8",
  ],
  HEAVY_BLOOD_LOSS: [
    "heavy|heavily|soak*|lot of blood|a lot|lots|loads|gush*|pour*|clot*|through a pad|pad an hour|=haemorrhag*|=hemorrhag*",
  ],
  FETAL_MOVEMENT_REDUCED: [
    "baby|babies & not|stop*|less|quiet*|no|hardly|barely|fewer & mov*|kick*|movement* ~5",
    "reduc*|fewer|less|no|not many & movement*|kick* ~3",
    "not & feel*|felt & baby|movement*|kick* ~6",
  ],
  WATERS_BROKEN: ["water* & break|broke|broken|gone|burst ~3", "leak* & fluid|water* ~3", "gush* & fluid|water ~3"],
  SWELLING_FACE_HANDS: ["face|hand*|finger*|feet|ankle* & swell*|swollen|puff* ~4"],
  ONE_SIDED_PELVIC_PAIN: [
    "unilateral|left|right & iliac fossa|adnexal ~2",
    "one side|one-sided|left side|right side|lower left|lower right & pain*|cramp*|hurt*|ache* ~6",
    "low|lower|low down & left|right & pain*|cramp*|hurt*|ache* ~4",
    "pain*|cramp*|ache* & on the left|on the right|on my left|on my right|on her left|on her right ~2",
  ],
  SHOULDER_TIP_PAIN: [
    "shoulder tip|tip of my shoulder|tip of * shoulder",
    "shoulder & right at the top|the top of|top of my ~3",
  ],
  /** NHS: a possible broken bone, or being unable to pass urine, needs same-day care. */
  FRACTURE_SIGNS: [
    "can not & put|bear|take & weight ~4",
    "can not & walk on|stand on ~4",
    "bone & stick* out|deformed|bent ~3",
    "wrist|arm|leg|ankle|finger|elbow|shoulder & look* bent|deformed|wrong angle|odd angle|out of shape|out of place ~4",
    "heard & crack|snap ~3",
    "broken|broke|fractur* & wrist|arm|leg|ankle|bone|finger|toe|collarbone|hip|elbow|foot ~3",
    "bent funny|bent wrong|at a funny angle",
  ],
  URINE_RETENTION: ["can not & pee|wee|urinate|pass urine ~3"],
  DIABETES: [
    "diabet*|insulin|type 1|type one|type 2|t1d|t1dm|t2d|t2dm|t1 diabetic|metformin|gliclazide",
    "blood sugar*|blood glucose|glucose|=bm|sugar level*|ketone*",
  ],
  HIGH_SUGAR: [
    "sugar*|glucose|reading*|=bm|meter|libre|dexcom|cgm & high|hi|sky high|through the roof|=over ~4",
    "hyperglyc*",
  ],
  KETOSIS: [
    "ketoacidosis|diabetic ketoacidosis",
    "ketone* & high|moderate|large|over ~4",
    "fruity|sweet|pear drop*|acetone|nail varnish & breath*|smell* ~4",
  ],
  /** Deep, sighing breaths: a sign of ketoacidosis in someone with diabetes, and of calming down in anyone else. */
  DEEP_BREATHING: ["deep*|big|heavy|sighing|gulping & breath* ~3"],
  HYPO: ["hypo|hypoglyc*|=hypos", "sugar*|glucose|=bm & low|drop*|crash* ~3"],
  HYPO_NOT_RESPONDING: [
    "not & respond* & sugar|glucose|sweet*|juice|dextrose|glucogel ~6",
    "can not|not|refus* & swallow|eat|drink ~3",
    "glucagon",
  ],
  BACK_PAIN: [
    "back went|back has gone|back gone|put my back out|put out my back|hurt my back|did my back in",
    "back & pain*|hurt*|ache|aching|agony|=killing|spasm|bad|playing up|put * out ~4",
    "sciatica|lumbago|slipped disc",
  ],
  SADDLE_NUMBNESS: [
    "numb|numbness|=numbed|tingl*|no feeling|can not feel|lost feeling|lose feeling|loss of feeling|no sensation|lost sensation|pins and needles & bum|buttock*|bottom|groin|genital*|saddle|privates|inner thigh*|anus|perineum|between * leg* ~6",
    "saddle anaesth*|saddle anesth*",
    "can not feel|numb|numbness & wipe|wiping ~4",
  ],
  BLADDER_BOWEL_LOSS: [
    "control & bladder|bowel*|pee|wee|poo|toilet ~6",
    "can not & pee|wee|urinate|pass urine|pass water|poo ~3",
    "wet myself|wet * self|incontinen*|pee* myself|poo* myself|leak* urine",
    "can not feel & pee|wee|poo|bladder ~5",
    "can not & tell|feel|sense & need & pee|wee|toilet|poo ~6",
  ],
  BOTH_LEGS_WEAK: [
    "both & leg* & weak*|numb|numbness|=numbed|give way|giving way|tingl* ~6",
    "legs & weak*|give way|giving way|numb|numbness|=numbed ~3",
  ],
  TESTICLE_PAIN: [
    "testic*|testis|teste*|=ball|=balls|scrot*|=nads & pain*|hurt*|agony|swell*|swollen|kick*|ache*|sore ~5",
  ],
  MAJOR_BLEEDING: [
    "bleed*|blood & not stop*|can not stop|everywhere|spurt*|pump*|gush*|pour*|heavily|soak*|pool|massive|all over ~5",
    "lot of blood|losing blood|lost a lot of blood|losing a lot of blood|blood everywhere",
    "cut|wound|gash|slice*|sliced & spurt*|pour*|pump* ~5",
    "soak* & through & towel*|tea towel*|bandage*|cloth*|dressing*|shirt|jumper ~6",
    "amputat*|severed|cut off * finger|=stabbed|stab wound|gunshot|been shot",
  ],
  DEEP_WOUND: [
    "cut|wound|gash|laceration & deep|gaping|to the bone|huge|wide open|need* stitch*|fat|=bone ~10",
    "need* & stitch*|glue ~3",
    "slice*|sliced|=split|=cut|gash* & open ~3",
    "=split & lip|chin|head|eyebrow|forehead ~3",
  ],
  NOSEBLEED: ["nose & bleed*|blood ~3", "nosebleed*"],
  BURN: [
    "burn*|=burnt|scald* & kettle|hot|oven|iron|pan|water|tea|coffee|fire|stove|chemical|acid|bleach|flame*|candle|hob|grill|boiling|steam|electric*|firework*|bbq|barbecue|straightener*|radiator ~8",
    "scald*",
    "hot|boiling & tea|coffee|water|oil|drink|soup|milk & spill*|pull*|knock*|pour*|over|on|splash* ~6",
    "blister* & hot|boiling|oven|iron|kettle|fire|stove|burner|hob|radiator|straightener*|heater|bbq|barbecue|pan|grill|candle|exhaust ~8",
    "too hot|scalding|boiling hot & red raw|blister*|peel*|skin came off ~8",
    "burn*|=burnt & blister*|peel*|white|charred|leathery|skin came off ~5",
    "=burnt|=burned & hand|arm|leg|face|foot|finger*|chest|back|skin|himself|herself|myself ~4",
  ],
  BURN_SERIOUS: [
    "large area|big area|large patch|whole back|whole chest|whole arm|whole leg|most of his|most of her|bigger than * hand|both legs|both arms|both feet|both hands",
    "large|big|bigger than|huge|deep|white|charred|leathery|no pain & burn*|scald* ~6",
    "face|mouth|neck|genital*|whole hand|whole arm|whole leg & burn*|scald* ~4",
    "chemical|electric*|acid|bleach|lye|caustic & burn* ~4",
    "smoke & breathe|inhal*|cough* ~5",
  ],
  SUNBURN: [
    "sunburn*|sun burn*|=burnt in the sun|burnt from the sun",
    "pink|red|burnt|frazzled & beach|in the sun|sunbathing|sunbed ~5",
  ],
  CO_SOURCE: [
    "carbon monoxide|co alarm|co detector",
    "alarm|detector & beep*|go off|went off|going off|sound* & carbon|monoxide|co ~6",
    "boiler|gas fire|gas heater|heater|generator|gas stove|fumes|exhaust|wood burner|log burner|paraffin & faulty|leak*|flame|yellow|orange|smell*|new|installed|old|serviced ~8",
    "all & headache* & kids|family|children|everyone|us|we ~6",
    "everyone|whole family|all of us|both of us|we all|the kids & headache*|dizzy ~8",
    "better & outside|out of the house|away from home|at work|leave the house|go out|get out|leave ~6",
  ],
};
