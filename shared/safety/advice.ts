import type { PresentationId, TriageLevel } from "./levels";

/**
 * The opening sentences of a reply, by level. The first sentence always follows the level; some
 * presentations add the line their guidance asks for (crisis lines for suicidal thoughts, the
 * maternity unit in pregnancy, poison control for poisoning).
 */
const OPENING: Record<Exclude<TriageLevel, "none">, string> = {
  emergency: "This could be an emergency: call your local emergency number (911, 112 or 999) now.",
  urgent:
    "This needs medical care today: go to urgent care or A&E/the emergency room, or call your out-of-hours service (111 in the UK) now.",
  soon: "Please book an appointment with a doctor within the next few days.",
  self_care:
    "This can usually be looked after at home; a pharmacist can advise. Get medical help if it gets worse, does not improve in a few days, or new symptoms appear.",
};

const EXTRA: Partial<Record<PresentationId, string>> = {
  suicide_self_harm:
    "You can also talk to someone right now: in the US call or text 988 (Suicide & Crisis Lifeline); in the UK and Ireland call Samaritans on 116 123; elsewhere, a local crisis line.",
  pregnancy_danger: "Contact your maternity unit or midwife straight away as well.",
  ectopic_pregnancy: "Contact your early pregnancy unit or maternity unit straight away as well.",
  overdose_poisoning:
    "Poison control can advise while help is on the way (US 1-800-222-1222; in the UK call 111). Do not make the person sick.",
  carbon_monoxide: "Get everyone out into fresh air, turn off the appliance if safe, and do not go back in.",
};

/** The advice for a level and the presentations found, or null when there is nothing to report. */
export function adviceFor(level: TriageLevel, presentations: PresentationId[]): string | null {
  if (level === "none") return null;
  const lines = [OPENING[level]];
  for (const id of new Set(presentations)) {
    const extra = EXTRA[id];
    if (extra) lines.push(extra);
  }
  return lines.join(" ");
}
