/**
 * Concepts for the brain, nerves, eyes and consciousness: FAST stroke signs, seizures, collapse,
 * head injury, meningitis, sudden loss of vision. Same pattern syntax as signsHeartLungs.ts.
 */
export const BRAIN_SIGNS: Record<string, string[]> = {
  FACE_DROOP: [
    "face|mouth|smile|lip|eyelid & droop*|drop*|sag*|lopsid*|crooked|uneven|wonky|slip*|slump*|numb|numbness|=numbed|fall*|fell|paralys* ~5",
    "droop*|lopsided & face|mouth|smile|side ~4",
    "facial droop|facial weakness|facial palsy|bell's palsy",
  ],
  /** "I think I'm having a stroke": the writer's own alarm counts as a stroke sign. */
  STROKE_NOW: ["=having & stroke ~3", "stroke & now|right now|happening ~3"],
  LIMB_WEAKNESS: [
    "arm|leg|hand|side|limb & weak*|numb|numbness|=numbed|limp|floppy|dead|heavy|useless|paralys*|paralyz*|not work* ~4",
    "can not & lift|raise|move|feel|use|grip|hold & arm|leg|hand|side ~5",
    "one side & weak*|numb|numbness|=numbed ~4",
    "hemipar*|hemipleg*|arm drift",
    "drop* & cup|thing*|stuff|glass ~4",
  ],
  /** Ordinary reasons a limb goes numb or weak, which are not a stroke. */
  LIMB_BENIGN_CUE: [
    "pins and needles|asleep|fell asleep|fall asleep|go to sleep|went to sleep",
    "after & sit*|crossed|slept|sleeping|lying|gym|workout ~4",
    "carpal tunnel|trapped nerve|sciatica|cramp",
    "slept on|sleep on|lying on|lay on",
  ],
  SPEECH_PROBLEM: [
    "slur*",
    "speech & slur*|garbl*|strange|weird|funny|wrong|jumbl*|muddl*|gone|thick|odd ~5",
    "word* & wrong|jumbl*|muddl*|garbl*|nonsense|jumble|mix* up|come out|coming out ~5",
    "can not & speak|talk|say ~3",
    "can not|struggl*|trouble|hard|unable & find|get|say & word* ~4",
    "talk*|speak* & gibberish|nonsense|funny|weird|strange|drunk ~4",
    "gibberish|aphasia|dysarthria",
  ],
  SUDDEN_VISION_LOSS: [
    "lose|lost|loss|losing & sight|vision ~4",
    "=gone|=went & blind ~3",
    "blind & sudden*|one eye|suddenly|overnight|out of nowhere ~4",
    "can not & see & eye|anything|out of ~5",
    "curtain|shadow|veil & vision|eye|over ~5",
    "vision|sight & black|dark|blank|gone|vanish*|disappear*|went out|blacked out ~6",
    "blind|shutter|blackout & came down|come down|coming down|pulled down ~3",
    "eye & go|gone|went & dark|black|blank|blind ~3",
  ],
  DOUBLE_VISION: ["double vision|seeing double|see double"],
  FLASHES_FLOATERS: [
    "flash*|floater*|cobweb* & eye|vision|light*|see|seeing ~5",
    "new floater*",
    "shower of|black dot*|dark dot*|black speck*|dark speck* & eye|vision|sight ~6",
    "flicker*|flash* & at the edge|in the corner|edge of|corner of ~3",
  ],
  BLURRED_VISION: [
    "blur*|fuzzy|hazy|spots|stars|flashing light* & vision|see|seeing|eye* ~4",
    "seeing & spots|stars ~2",
    "=blurry|=blurred|blurriness",
    "zigzag*|zig zag*|sparkl*|shimmer* & see|seeing|vision|eye* ~4",
  ],
  WORST_HEADACHE: [
    "worst & headache|head pain ~5",
    "thunderclap",
    "head*|headache & explod*|like being hit|like * hit * bat|like * hit * hammer ~6",
    "sudden* & severe|=bad|=awful|agony & headache ~4",
    "headache & came on sudden*|out of nowhere|in seconds|instantly ~6",
  ],
  HEADACHE: [
    "headache*|migraine*",
    "head & hurt*|pain*|ache|pound*|throb*|splitting ~3",
    "head pain",
    "=banging|=thumping|=pounding|=throbbing|=splitting & head|heads ~1",
  ],
  CONFUSION: [
    "confus*|disorient*|delirious|delirium|muddled",
    "not & make sense|making sense ~3",
    "not know & where|who|what day ~5",
    "not & recogni* ~3",
    "not himself|not herself|not themselves|not with it|acting strange*|acting weird*",
  ],
  DROWSY: [
    "drows*|letharg*",
    "hard to wake|difficult to wake|very sleepy|really sleepy|keep* falling asleep",
    "struggl*|hard|can not|difficult|fight* & keep * eye* open|stay awake|keep awake ~3",
    "reduced consciousness|decreased consciousness|altered consciousness",
  ],
  UNRESPONSIVE: [
    "unconscious*|unresponsive|unrousable|out cold|lifeless",
    "in and out of consciousness|drifting in and out|going in and out",
    "not & moving|move & or|and & talk*|speak*|respond*|breath* ~3",
    "not & wake|waking|woken|respond*|react*|rouse ~3",
    "eye* & open & nothing there|nobody there|no one there|not there|not respond* ~4",
    "can not & wake|rouse & him|her|them|up ~4",
    "not & come round|coming round|come to ~3",
    "knock* & out|unconscious ~2",
    "loss of consciousness|lose consciousness|lost consciousness|losing consciousness",
  ],
  COLLAPSED: [
    "collapse*|keel* over",
    "found & on the floor|on the ground|on the bathroom floor ~6",
    "drop* to the floor|hit the floor|fell to the floor",
  ],
  FAINTED: ["=fainted|=faints|=fainting|pass* out|black* out|blacked out|=swooned|syncope|syncopal"],
  FEEL_FAINT: [
    "feel*|feeling & faint|lightheaded|light-headed|dizzy|woozy ~3",
    "about to pass out|presyncope|near syncope|pre syncope",
  ],
  SEIZURE: [
    "seizure*|seizing|convuls*|epileptic fit|tonic clonic|grand mal|status epilepticus",
    "fit & have|had|having|another|first|into|=a & shak*|jerk*|floor|foam*|eye* ~6",
    "have|had|having|another|first|=fits & =fit|=fits ~2",
    "=fitting",
    "shak*|jerk* & uncontroll*|whole body|all over|stiff|not respond*|unresponsive|eyes|rolled|floor ~8",
    "foam* at the mouth",
  ],
  /** "My seizure medication", "anti-seizure drugs": a medicine, not an event. */
  SEIZURE_MEDICINE: [
    "seizure*|epilep*|fit & medic*|med|meds|tablet*|drug*|pill*|dose*|prescription ~3",
    "anti-seizure|antiepileptic|keppra|levetiracetam|lamotrigine|valproate|epilim|carbamazepine",
  ],
  SEIZURE_REPEATED: [
    "another|again|repeated*|second one|back to back|one after another|keep* having|several|multiple & seizure*|fit|fits|one ~5",
    "several|multiple|two|three|many|lots of|keep* having & =seizures|=fits ~2",
    "=seizures|=fits & in a row|one after * other|back to back ~3",
  ],
  /** Seizures coming more often over weeks: a change in someone's epilepsy for their doctor, not one event. */
  SEIZURE_FREQUENCY: [
    "more|frequent*|often & lately|recently|this month|past month|last month|these days|few weeks|this year ~5",
    "increas* & seizure*|fits ~3",
  ],
  FIRST_SEIZURE: ["first & seizure|fit|ever ~3", "never & seizure|fit|fits|epilep* ~6", "first time"],
  KNOWN_EPILEPSY: ["epilep*", "usual seizure*|usual fit*|normal seizure*|typical seizure*"],
  /** "Otherwise fine", "no other symptoms": a single mild complaint in someone well. */
  OTHERWISE_WELL: [
    "otherwise fine|otherwise well|otherwise ok|otherwise okay|otherwise healthy|no other symptoms|fine otherwise",
  ],
  RECOVERED: [
    "come round|came round|coming round|come to|came to|back to normal|recover*|woken up|woke up after|awake now|fine now|ok now|okay now|better now|normal now",
    "back to himself|back to herself|back to myself|himself again|herself again|myself again",
    "lasted|last & second*|minute* ~3",
    "stop* & after & second*|minute* ~5",
  ],
  HEAD_INJURY: [
    // "A banging head" is a headache; "banged his head" and "banging his head" are knocks.
    "hit|=bang|=bangs|=banged|bump*|knock*|smack*|whack*|strike|struck|land* on|slam*|crack*|=split & head ~5",
    "=banging & my|his|her|their & head ~2",
    "head injury|head injuries|head trauma|concuss*|skull fracture|knocked out|knocked unconscious",
    "fell|fall|fallen|fell off|fell down|slip*|trip* & head ~6",
  ],
  /** NHS "Head injury": with these after a knock to the head, call 999. */
  HEAD_INJURY_999: [
    "clear fluid & nose|ear ~6",
    "blood & ear|ears ~3",
    "bruis* & behind * ear|around * eye* ~5",
    "fell|fall|fallen & stair*|ladder|roof|height|window|balcony|tree|wall ~5",
    "car crash|hit by a car|knocked off * bike|motorbike|at speed",
  ],
  /** NHS "Head injury": with these, go to A&E. */
  HEAD_INJURY_RED: [
    "blood thinner*|warfarin|apixaban|rivaroxaban|edoxaban|dabigatran|anticoagul*|clopidogrel",
    "can not remember & what happen*|fall|accident|hit ~6",
    "amnesia|memory loss",
    "headache & getting worse|worse and worse|worsening ~5",
  ],
  STIFF_NECK: [
    "neck & stiff*|rigid*|can not bend|can not move|hurt* to bend|hurt* to move ~5",
    "chin & chest & can not|touch|bend ~6",
    "nuchal rigidity|meningism",
  ],
  NECK_STRAIN_CUE: [
    "slept funny|slept wrong|slept awkward*|sleep* & wrong|funny|awkward* ~4",
    "pillow|desk|computer|whiplash|gym",
  ],
  NON_BLANCHING_RASH: [
    "rash|spot*|mark*|blotch*|dot*|speck* & not|still & fade|blanch ~6",
    "glass|tumbler|press* & rash|spot*|mark*|dot*|speck* & not|still & fade|disappear|go|go away|see|visible|there ~10",
    "non blanch*|nonblanch*|non-blanch*|purpur*|petechia*",
    "purple|dark red|pin prick|pinprick & rash|spot*|blotch*|bruise*|dot*|speck* ~4",
    "rash & purple ~4",
  ],
  PHOTOPHOBIA: [
    "light & hurt*|bother*|sensitiv*|can not stand|hate|pain* ~6",
    "photophobi*|sensitiv* to light",
    "can not & look at & light ~6",
  ],
};
