/** Household products a child can swallow (NHS "Poisoning"). */
const HOUSEHOLD_HAZARDS =
  "bleach|detergent|pod*|capsule|cleaning|cleaner|chemical*|antifreeze|weedkiller|poison*|berr*|mushroom*|vape|e-liquid|nicotine|lamp oil|white spirit|paint|screenwash|rat poison|slug pellet*|dishwasher tablet|washing tablet|liquitab*|laundry|oven cleaner|drain cleaner|toadstool*|plant|leaves|button|coin|cigarette*";

/**
 * Concepts for suicidal thoughts and self-harm, overdose and poisoning (button batteries and
 * magnets included). Suicide is often said indirectly ("ending it", "better off without me",
 * goodbye letters, saving up pills), so the indirect forms are concepts of their own.
 * Same pattern syntax as signsHeartLungs.ts.
 */
export const MIND_POISON_SIGNS: Record<string, string[]> = {
  SUICIDAL_THOUGHTS: [
    "kill myself|end my life|end my own life|take my life|take my own life|killing myself|ending my life",
    "kill himself|kill herself|kill themselves|killing himself|killing herself|end his life|end her life|take his own life|take her own life",
    "suicid*",
    "want|wanna|wish & die|be dead|not be here|not exist|not wake up|not to wake up|disappear forever ~4",
    "end* & it all|everything|things for good ~3",
    "=ending it|=end it ~2",
    "better off & without me|dead|if i be gone|if i was gone|if i be not here|if i was not here ~5",
    "no reason to live|nothing to live for|no point in living|no point living|no point to life|no point anymore|not see the point|what is the point",
    "better off|happier|easier & without me|if i be dead|if i was dead|if i were dead|if i be gone|if i was gone|if i were gone|if i disappear*|if i vanish*|if i be not around|if i was not around|if i be not here|if i was not here ~6",
    "not want to & live|be alive|be here|be around|go on|exist|wake up ~3",
    "not see a way out|see no way out|no way out for me|no way out anymore|no hope left|no future for me",
    "want|wanna|wish|hope|rather|like & never wake up|never to wake up|sleep forever|not wake up again ~8",
    "family|everyone|everybody|kids|world|people|they|them & =would & fine|manage|cope|okay|ok|alright|happier|easier|better & without me ~6",
    "nobody|no one & miss me|notice i be gone|notice if i be gone ~4",
    "can not go on|can not do this anymore|can not keep going",
    "want & it all to stop|everything to stop|it to end|it all to end ~2",
    "=going to|=gonna|will & take|swallow & all my|all the|whole & pill*|tablet*|meds|paracetamol ~5",
    "jump off|jump in front|hang myself|hanging myself|slit my wrist*|cut my wrist*|drown myself",
  ],
  /** The means gathered or a goodbye: NHS and 988 treat these as an emergency on their own. */
  SUICIDE_PREPARATION: [
    "stockpil*|save up|saving up|hoard*|collect*|stash*|been keeping|saved up & pill*|tablet*|medic*|paracetamol|meds ~6",
    "goodbye|farewell|suicide & note|letter*|message*|text*|post* ~4",
    "write|wrote|writing|written & letter*|note* & family|everyone|kid*|children|wife|husband|parents|goodbye ~8",
    "give|giving|gave & away & thing*|belonging*|stuff|possession*|pet* ~5",
    "bought|buy|got & rope|gun|blade* ~4",
    "pill*|tablet*|rope|gun|meds & ready|sorted|lined up|counted out ~3",
  ],
  /** A plan or a time chosen, which turns thoughts of suicide into intent. */
  SUICIDE_INTENT: [
    "plan*|decide*|ready|=going to|=gonna|method|way & die|do it|end it|kill myself|end my life|take my life ~6",
    "tonight|today|this weekend|right now|after everyone|when everyone",
    "got a plan|have a plan|made a plan|have plans|worked out how|know how i would|how i would do it|how to do it|how i would end it|ways to do it",
  ],
  /** Putting one's affairs in order (988 warning signs), unless for an operation or a journey. */
  AFFAIRS_IN_ORDER: ["affairs in order|sort* out my affairs|sort* my affairs|put my affairs"],
  PLANNED_EVENT: ["before|ahead of & operation|surgery|op|holiday|trip|travel*|move|moving|retire* ~4"],
  /** Looking up how much of a medicine would kill: the means researched (988 warning signs). */
  MEANS_RESEARCHED: ["look* up|research*|googl*|search* & how many|how much|lethal|fatal|enough to ~4"],
  /** A message of love and apology, which with the person now out of reach reads as a goodbye (988 warning signs). */
  FAREWELL_MESSAGE: ["sorry for everything", "message*|text*|post*|note|letter*|wrote|say*|said & love* & sorry ~10"],
  UNREACHABLE: [
    "phone & off|dead|switched off|voicemail ~4",
    "not & answer*|pick* up|reply*|respond* & phone|call*|text*|message* ~5",
  ],
  /** "I would never act on it", "I'm safe": thoughts without intent. */
  SAFETY_STATEMENT: ["never act|not act|not going to act|no plan*|not plan*|i be safe|keep myself safe|would never"],
  SELF_HARM: [
    "self harm*|self-harm*|selfharm*|self injur*",
    "cut*|burn*|hurt*|harm*|scratch*|hit* & myself ~2",
    "=cutting|=burning|=scratching & my arm*|my wrist*|my thigh*|my leg* ~2",
    "cut|burn*|scratch*|carv* & my arm*|my wrist*|my thigh*|my leg*|my skin ~2",
  ],
  /** "I cut myself shaving", "burnt myself cooking": accidents, not self-harm. */
  ACCIDENT_CUE: [
    "accident*|shaving|cooking|chopping|slicing|by mistake|on glass|on the oven|on a knife|gardening|diy|eczema|itch*|mosquito*",
    "=on & a|the|some & nail|glass|knife|metal|fence|tin|wire|branch|rock|door|corner|edge|thorn*|bottle|can|shelf|screw|hob|stove ~1",
  ],
  OVERDOSE: [
    "overdose*|=od|=od'd|=o.d.",
    "take|took|taken|swallow*|ate|eat|eaten|down* & too many|whole|all|pack|packet|box|bottle|handful|lot of|load of|bunch|dozen|strip* & pill*|tablet*|paracetamol|meds|medicine*|medication*|capsule*|sleeping|insulin|painkiller*|antidepressant*|codeine|co-codamol|tramadol|opioid*|morphine|oxycodone|ibuprofen|aspirin|diazepam|sertraline|drugs ~8",
  ],
  PILLS: [
    "pill*|tablet*|paracetamol|acetaminophen|tylenol|ibuprofen|aspirin|co-codamol|codeine|tramadol|medicine*|medication*|capsule*|sleeping|meds|antidepressant*|insulin|painkiller*|opioid*|oxycodone|morphine|fentanyl|heroin|drug*|iron tablet*|vitamin*",
  ],
  DOUBLE_DOSE: [
    "double dose|two dose*|extra dose|dose twice|twice by mistake|by mistake|accidentally took|wrong medic*|wrong pill*|wrong tablet*",
    "accidental* & dose|pill*|tablet*|medic* ~6",
    "took|taken|had & twice|double & pill*|tablet*|dose*|medic* ~6",
    "someone else's|somebody else's & pill*|tablet*|medic* ~4",
  ],
  BATTERY_MAGNET: [
    "swallow*|ate|eat*|in * mouth|up * nose|in * ear|chew*|=sucking & battery|batteries|magnet* ~8",
    "button battery|coin battery|lithium battery|button cell",
  ],
  HAZARD_SWALLOWED: [
    `swallow*|ingest*|ate|eat*|eaten|drank|drink*|lick*|chew*|=sucking|got into|in * mouth & ${HOUSEHOLD_HAZARDS} ~8`,
    // A child who has opened a cleaner has had the chance to taste it (NHS "Poisoning").
    "lid off|top off|cap off|got into|got hold of|=opened & bleach|cleaner|detergent|chemical*|antifreeze|weedkiller|poison*|laundry|dishwasher tablet* ~4",
    "poisoned|poisoning",
  ],
  /** Medicines or alcohol that a child reached: poisonous at doses an adult takes safely. */
  CHILD_GOT_INTO: [
    "open|opened|empty & bottle|packet|pack|box|tub & pill*|tablet*|medicine*|vitamin* ~6",
    "not know|no idea|not sure & how many|how much & had|taken|swallowed|eaten|take|swallow|eat ~5",
    "swallow*|ingest*|ate|eat*|eaten|drank|drink*|chew*|got into|got hold of|found & pill*|tablet*|medicine*|vitamin*|iron|paracetamol|calpol|alcohol|vodka|wine|gin|whisky|beer|gummies ~6",
  ],
};
