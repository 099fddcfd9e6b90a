import { describe, expect, test } from "bun:test";
import { Value } from "@sinclair/typebox/value";
import {
  assessMessage,
  CATALOGUE,
  moreUrgent,
  TRIAGE_LEVELS,
  type TriageLevel,
  TriageSchema,
  triageAdvice,
} from "../../shared/safety/assess";
import { type BankMessage, evaluateBank } from "../../shared/safety/evaluate";
import { PRESENTATION_IDS } from "../../shared/safety/levels";
import development from "../fixtures/triage/development.json";

const levelOf = (text: string, context?: Parameters<typeof assessMessage>[1]) => assessMessage(text, context).level;
const idsOf = (text: string) => assessMessage(text).presentations.map((p) => p.id);

/** Each presentation: a message that must list it at a level, and a near miss that must not. */
const PRESENTATION_CASES: Record<string, { positive: [string, TriageLevel]; negative: string }> = {
  cardiac_chest_pain: {
    positive: ["a squeezing pain in my chest that's moving into my jaw, I feel clammy", "emergency"],
    negative: "my chest hurts when I press on the spot where I bumped it on the door",
  },
  stroke: {
    positive: ["my aunt's mouth has gone lopsided and she can't lift her left arm", "emergency"],
    negative: "my foot went to sleep after sitting on it and now I have pins and needles",
  },
  breathing_difficulty: {
    positive: ["my grandson is struggling to breathe and his lips are going blue", "emergency"],
    negative: "I was out of breath after running up the hill but I'm fine now",
  },
  anaphylaxis: {
    positive: ["ate a walnut by accident, my tongue is swelling and I feel faint", "emergency"],
    negative: "what is the difference between an allergy and an intolerance?",
  },
  suicide_self_harm: {
    positive: ["I've bought a rope and I don't want to be here anymore", "emergency"],
    negative: "this job is killing me, what helps with stress headaches?",
  },
  overdose_poisoning: {
    positive: ["my 3 year old chewed a washing capsule and is coughing", "emergency"],
    negative: "how many paracetamol can I take in 24 hours?",
  },
  seizure: {
    positive: ["my brother has been fitting for 8 minutes and is turning blue", "emergency"],
    negative: "can my seizure tablets be taken with food?",
  },
  collapse_unresponsive: {
    positive: ["my neighbour has collapsed in the street and isn't responding", "emergency"],
    negative: "I felt dizzy when I stood up but didn't faint",
  },
  sepsis: {
    positive: ["my gran has a kidney infection and now she's confused and her skin is mottled", "emergency"],
    negative: "what antibiotics are used for a kidney infection?",
  },
  infant_fever_newborn: {
    positive: ["my 4 week old is hot and her temperature is 38.5", "emergency"],
    negative: "my 2 year old has a temperature of 37.9 and is playing happily",
  },
  pregnancy_danger: {
    positive: ["I'm 34 weeks pregnant and soaking a pad every hour with blood", "emergency"],
    negative: "I'm 34 weeks pregnant, which birthing classes do you recommend?",
  },
  ectopic_pregnancy: {
    positive: ["I'm 6 weeks pregnant with bad pain on my right side and I nearly passed out", "emergency"],
    negative: "what is an ectopic pregnancy?",
  },
  dka_hypoglycaemia: {
    positive: ["my type 1 son is vomiting and his ketones are 3.8", "emergency"],
    negative: "what should my blood sugar be before breakfast?",
  },
  gi_bleeding: {
    positive: ["I've just thrown up what looks like blood and coffee grounds", "emergency"],
    negative: "my stools are dark since I started iron tablets and I feel well",
  },
  testicular_torsion: {
    positive: ["my 13 year old woke with sudden terrible pain in his testicle", "emergency"],
    negative: "how do I examine my testicles?",
  },
  cauda_equina: {
    positive: ["back pain and I can't feel anything around my bottom when I wipe", "emergency"],
    negative: "my lower back aches after moving house, I can walk fine",
  },
  head_injury: {
    positive: ["my mum hit her head when she fell and she takes apixaban", "urgent"],
    negative: "what is the recovery time for concussion in adults?",
  },
  severe_bleeding: {
    positive: ["my husband sliced his hand with a saw and blood is spurting everywhere", "emergency"],
    negative: "I grazed my knee, it bled a little and stopped",
  },
  child_burns: {
    positive: ["my 2 year old spilled hot coffee on his leg and it's blistering", "urgent"],
    negative: "I have heartburn every night after dinner",
  },
  sudden_vision_loss: {
    positive: ["I suddenly can't see anything out of my right eye", "emergency"],
    negative: "my eyes are itchy and watery from hay fever",
  },
  carbon_monoxide: {
    positive: [
      "the carbon monoxide alarm went off and my husband and I both have headaches and feel dizzy",
      "emergency",
    ],
    negative: "where should I put a carbon monoxide detector in my house?",
  },
  aortic_dissection: {
    positive: ["a sudden ripping pain tore through my chest into my back", "emergency"],
    negative: "I tore a ligament in my knee last year, can I run again?",
  },
  meningitis: {
    positive: ["my son has a high fever and a stiff neck and the light hurts his eyes", "emergency"],
    negative: "my neck has been stiff since I slept awkwardly, no fever",
  },
};

describe("the interface", () => {
  test("levels run from most to least urgent; moreUrgent picks the more urgent", () => {
    expect([...TRIAGE_LEVELS]).toEqual(["emergency", "urgent", "soon", "self_care", "none"]);
    expect(moreUrgent("soon", "urgent")).toBe("urgent");
    expect(moreUrgent("emergency", "none")).toBe("emergency");
    expect(moreUrgent("self_care", "self_care")).toBe("self_care");
  });

  test("every result matches TriageSchema and names a reason", () => {
    for (const text of ["I want to kill myself", "how much sleep do adults need?", "I have a cold"]) {
      const triage = assessMessage(text);
      expect(Value.Check(TriageSchema, triage)).toBe(true);
      expect(triage.reason.length).toBeGreaterThan(10);
    }
  });

  test("the catalogue has exactly the required presentation ids, each citing guidance", () => {
    expect(CATALOGUE.map((p) => p.id).sort()).toEqual([...PRESENTATION_IDS].sort());
    for (const presentation of CATALOGUE) expect(presentation.guidance.length).toBeGreaterThan(30);
  });
});

describe("every presentation", () => {
  for (const [id, { positive, negative }] of Object.entries(PRESENTATION_CASES)) {
    test(`${id}: fires on its signs and not on a look-alike`, () => {
      const triage = assessMessage(positive[0]);
      expect(triage.presentations.map((p) => p.id)).toContain(id);
      expect(triage.level).toBe(positive[1]);
      expect(idsOf(negative)).not.toContain(id);
      expect(["emergency", "urgent"]).not.toContain(levelOf(negative));
    });
  }
});

describe("what makes a presentation urgent or soon rather than an emergency", () => {
  test("chest pain: plain is same-day, with heart-attack features an emergency, reflux-like within days", () => {
    expect(levelOf("I've had a dull ache in my chest since lunch")).toBe("urgent");
    expect(levelOf("dull ache in my chest and I'm sweating and feel sick")).toBe("emergency");
    expect(levelOf("burning in my chest after a big curry, antacids help")).toBe("soon");
  });

  test("seizures: over 5 minutes or repeated is an emergency; a first short fit with recovery is urgent", () => {
    expect(levelOf("my daughter has had a seizure for 6 minutes")).toBe("emergency");
    expect(levelOf("my son keeps having seizures one after the other")).toBe("emergency");
    expect(levelOf("my husband had his first ever fit, it lasted a minute and he has come round")).toBe("urgent");
    expect(levelOf("I have epilepsy, had my usual seizure for a minute and recovered fine")).toBe("soon");
  });

  test("suicidal thoughts are an emergency, with a safety statement and no plan same-day", () => {
    expect(levelOf("I keep thinking about suicide")).toBe("emergency");
    expect(levelOf("I have thoughts of suicide sometimes but I would never act on them")).toBe("urgent");
    expect(levelOf("I've been hurting myself again")).toBe("urgent");
  });

  test("indirect suicide wording counts: plans, saved pills, goodbye letters, ending it, better off without me", () => {
    for (const text of [
      "I've been stockpiling my tablets for weeks",
      "I've written goodbye letters to my parents",
      "I'm thinking of ending it all",
      "my family would be better off without me",
      "there's no reason to live anymore",
    ]) {
      expect(idsOf(text)).toContain("suicide_self_harm");
      expect(levelOf(text)).toBe("emergency");
    }
  });

  test("poisoning: button batteries and magnets are emergencies; an accidental extra dose is same-day", () => {
    expect(levelOf("my baby might have swallowed a watch battery")).toBe("emergency");
    expect(levelOf("my daughter swallowed a magnet from the fridge")).toBe("emergency");
    expect(levelOf("I accidentally took a double dose of my statin")).toBe("urgent");
  });

  test("stroke signs that have passed are same-day care (TIA)", () => {
    expect(levelOf("my dad's face drooped for ten minutes but he's back to normal now")).toBe("urgent");
  });
});

describe("ConText: negated, historical, hypothetical, family history", () => {
  test("negations and denials", () => {
    expect(levelOf("no chest pain, no shortness of breath, just a sore throat")).toBe("self_care");
    expect(levelOf("patient denies chest pain or breathlessness")).toBe("none");
    expect(levelOf("I don't have a fever or a stiff neck")).toBe("none");
  });

  test("a negation word inside a symptom is the symptom: can't breathe, won't stop, not breathing", () => {
    expect(levelOf("I can't breathe")).toBe("emergency");
    expect(levelOf("the bleeding won't stop")).toBe("emergency");
    expect(levelOf("my dad is not breathing")).toBe("emergency");
  });

  test("resolved history is not current", () => {
    expect(levelOf("I had a seizure when I was a kid, can I join the army?")).toBe("none");
    expect(levelOf("years ago I had chest pain that turned out to be anxiety; what helps anxiety?")).toBe("none");
  });

  test("hypotheticals are not reports", () => {
    expect(levelOf("what should I do if my child has a seizure?")).toBe("none");
    expect(levelOf("in case my husband gets chest pain again, should we keep aspirin at home?")).toBe("none");
  });

  test("family history is none, a relative with symptoms now counts", () => {
    expect(levelOf("my grandmother died of a stroke, am I at risk?")).toBe("none");
    expect(levelOf("heart disease runs in my family, what should I eat?")).toBe("none");
    expect(levelOf("my dad is having chest pain and sweating")).toBe("emergency");
  });

  test("fear of an illness is hypothetical, fear about a symptom is not; saying it is happening counts", () => {
    expect(levelOf("I'm terrified of having a stroke, how can I prevent one?")).toBe("none");
    expect(levelOf("I'm worried about my chest pain, it feels crushing")).toBe("emergency");
    expect(levelOf("I think I'm having a stroke")).toBe("emergency");
    expect(idsOf("my arm hurts after tennis")).not.toContain("suicide_self_harm");
  });

  test("a terminator ends the scope: 'no fever but my neck is stiff and light hurts'", () => {
    expect(levelOf("no cough but I am struggling to breathe")).toBe("emergency");
  });
});

describe("idioms and information requests", () => {
  test("idioms are not emergencies", () => {
    for (const text of [
      "my kids are giving me a heart attack today, any tips for patience?",
      "my boss will kill me if I'm late again",
      "I'm dying to know if oat milk is healthy",
      "this commute is a pain in the neck",
    ]) {
      expect(levelOf(text)).toBe("none");
    }
  });

  test("requests for information or research are none", () => {
    for (const text of [
      "what are the signs of a stroke?",
      "what is the dose of amoxicillin for adults?",
      "find papers about sepsis in older adults",
      "search for studies on anaphylaxis and beta blockers",
      "explain what a seizure is",
    ]) {
      expect(levelOf(text)).toBe("none");
    }
  });

  test("a symptom next to an information request still counts", () => {
    expect(levelOf("what are the signs of a stroke? my mum's face is drooping right now")).toBe("emergency");
  });
});

describe("subjects, ages and pregnancy", () => {
  test("someone else's symptoms are 'other', one's own 'self'", () => {
    expect(assessMessage("my wife can't breathe").presentations[0]?.subject).toBe("other");
    expect(assessMessage("I can't breathe").presentations[0]?.subject).toBe("self");
    expect(assessMessage("45M with crushing chest pain").presentations[0]?.subject).toBe("other");
  });

  test("a pet's symptoms are not triaged; a person's symptoms next to a pet are", () => {
    expect(levelOf("our dog collapsed this morning")).toBe("none");
    expect(levelOf("I was walking the dog and got crushing chest pain")).toBe("emergency");
  });

  test("infant fever: under 3 months 38 °C is an emergency; 4 months needs 39 °C for same-day; 3 years is self-care", () => {
    expect(levelOf("my 10 week old has a temperature of 38.2")).toBe("emergency");
    expect(levelOf("my newborn has a fever")).toBe("emergency");
    expect(levelOf("my 4 month old has a temperature of 38.2")).toBe("self_care");
    expect(levelOf("my 4 month old has a temperature of 39.3")).toBe("urgent");
    expect(levelOf("my 3 year old has a temperature of 38.2")).toBe("self_care");
    expect(levelOf("my 6 week old has a temperature of 101.2F")).toBe("emergency");
  });

  test("the writer's known age changes thresholds: a faint at 70 is same-day, at 25 within days", () => {
    expect(levelOf("I fainted this morning", { ageYears: 70 })).toBe("urgent");
    expect(levelOf("I fainted this morning", { ageYears: 25 })).toBe("soon");
  });

  test("pregnancy turns bleeding and headaches into danger signs, from the text or the context", () => {
    expect(levelOf("I'm bleeding", { pregnant: true })).toBe("urgent");
    expect(levelOf("I'm 30 weeks pregnant and bleeding")).toBe("urgent");
    expect(levelOf("terrible headache and my vision is blurry", { pregnant: true })).toBe("emergency");
    expect(levelOf("I'm expecting and have a terrible headache and blurred vision")).toBe("emergency");
    expect(idsOf("I'm expecting and have a terrible headache and blurred vision")).toContain("pregnancy_danger");
  });
});

describe("everyday symptoms and the general rules", () => {
  test("mild complaints are self-care, weeks-long ones soon, severe pain same-day", () => {
    expect(levelOf("I've got a runny nose and a sore throat")).toBe("self_care");
    expect(levelOf("I've had a cough for five weeks")).toBe("soon");
    expect(levelOf("I have excruciating pain in my side")).toBe("urgent");
    expect(levelOf("how much water should I drink?")).toBe("none");
  });
});

describe("triageAdvice", () => {
  test("the first sentence follows the level; extras for suicide, pregnancy and poisoning", () => {
    const emergency = triageAdvice(assessMessage("crushing chest pain spreading to my arm"));
    expect(emergency).toStartWith(
      "This could be an emergency: call your local emergency number (911, 112 or 999) now.",
    );
    const suicide = triageAdvice(assessMessage("I want to end my life"));
    expect(suicide).toContain("988");
    expect(suicide).toContain("116 123");
    expect(triageAdvice(assessMessage("I'm 30 weeks pregnant and bleeding heavily"))).toContain("maternity unit");
    expect(triageAdvice(assessMessage("my son swallowed bleach"))).toContain("Poison control");
    expect(triageAdvice(assessMessage("I've been short of breath since yesterday"))).toStartWith(
      "This needs medical care today",
    );
    expect(triageAdvice(assessMessage("I've had a cough for five weeks"))).toStartWith("Please book an appointment");
    expect(triageAdvice(assessMessage("I've got a runny nose"))).toStartWith(
      "This can usually be looked after at home",
    );
    expect(triageAdvice(assessMessage("what is a normal heart rate?"))).toBeNull();
  });
});

describe("the development bank", () => {
  const messages = development.messages as BankMessage[];
  const result = evaluateBank(messages);

  test("has at least 400 labelled messages covering every level, presentation and style", () => {
    expect(messages.length).toBeGreaterThanOrEqual(400);
    for (const level of TRIAGE_LEVELS) expect(messages.some((m) => m.level === level)).toBe(true);
    for (const id of PRESENTATION_IDS) expect(messages.some((m) => m.presentation === id)).toBe(true);
    for (const style of ["first_person", "other_person", "short", "long", "typo", "clinician"]) {
      expect(messages.some((m) => m.style === style)).toBe(true);
    }
    expect(new Set(messages.map((m) => m.id)).size).toBe(messages.length);
  });

  test("every emergency is escalated to urgent or higher; look-alike false alarms stay at or under 5 %", () => {
    expect(result.emergencyEscalated.hit).toBe(result.emergencyEscalated.total);
    expect(result.lookalikeFalseAlarms.hit / result.lookalikeFalseAlarms.total).toBeLessThanOrEqual(0.05);
  });

  test("exact level on at least 99 % of the bank (the level reached while developing)", () => {
    expect(result.exact.hit / result.exact.total).toBeGreaterThanOrEqual(0.99);
  });
});
