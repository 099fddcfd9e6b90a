import { type AssessContext, assessMessage, TRIAGE_LEVELS, type Triage, type TriageLevel } from "./assess";

/**
 * Scores the triage engine against a labelled bank (test/fixtures/triage/*.json), like a model:
 * recall per level and per presentation, false alarms on look-alikes, how many emergencies were
 * at least escalated to same-day care, and a confusion matrix. `scripts/eval-triage.ts` prints it;
 * the unit tests assert thresholds on the development bank.
 */
export interface BankMessage {
  id: string;
  text: string;
  level: TriageLevel;
  presentation?: string | null;
  lookalike?: boolean;
  subject?: "self" | "other";
  style?: string;
  context?: AssessContext;
}

export interface Ratio {
  hit: number;
  total: number;
}

export interface Evaluation {
  messages: number;
  /** Messages without one of the five levels as gold, left out of every figure. */
  skipped: number;
  /** Share of messages of each gold level given exactly that level. */
  recallByLevel: Record<TriageLevel, Ratio>;
  /** Share of messages with a gold presentation whose triage lists it. */
  recallByPresentation: Record<string, Ratio>;
  /** Look-alikes assigned `urgent` or `emergency`. */
  lookalikeFalseAlarms: Ratio;
  /** Gold `emergency` messages assigned `urgent` or `emergency`. */
  emergencyEscalated: Ratio;
  /** Share of all messages given exactly the gold level. */
  exact: Ratio;
  /** confusion[gold][predicted] counts, levels in TRIAGE_LEVELS order. */
  confusion: Record<TriageLevel, Record<TriageLevel, number>>;
  /** Messages whose level differs from gold, for reading. */
  misses: { id: string; text: string; gold: TriageLevel; got: TriageLevel; reason: string }[];
}

const ratio = (): Ratio => ({ hit: 0, total: 0 });
const count = (r: Ratio, hit: boolean) => {
  r.total++;
  if (hit) r.hit++;
};
const URGENT_OR_MORE = new Set<TriageLevel>(["emergency", "urgent"]);

export function evaluateBank(messages: BankMessage[], assess: (m: BankMessage) => Triage = defaultAssess): Evaluation {
  const levels = Object.fromEntries(TRIAGE_LEVELS.map((level) => [level, ratio()])) as Record<TriageLevel, Ratio>;
  const confusion = Object.fromEntries(
    TRIAGE_LEVELS.map((gold) => [gold, Object.fromEntries(TRIAGE_LEVELS.map((got) => [got, 0]))]),
  ) as Evaluation["confusion"];
  const result: Evaluation = {
    messages: 0,
    skipped: 0,
    recallByLevel: levels,
    recallByPresentation: {},
    lookalikeFalseAlarms: ratio(),
    emergencyEscalated: ratio(),
    exact: ratio(),
    confusion,
    misses: [],
  };
  for (const message of messages) {
    if (!(TRIAGE_LEVELS as readonly string[]).includes(message.level)) {
      result.skipped++;
      continue;
    }
    result.messages++;
    const triage = assess(message);
    const got = triage.level;
    count(levels[message.level], got === message.level);
    count(result.exact, got === message.level);
    confusion[message.level][got]++;
    if (message.presentation) {
      result.recallByPresentation[message.presentation] ??= ratio();
      const listed = triage.presentations.some((p) => p.id === message.presentation);
      count(result.recallByPresentation[message.presentation]!, listed);
    }
    if (message.lookalike) count(result.lookalikeFalseAlarms, URGENT_OR_MORE.has(got));
    if (message.level === "emergency") count(result.emergencyEscalated, URGENT_OR_MORE.has(got));
    if (got !== message.level) {
      result.misses.push({ id: message.id, text: message.text, gold: message.level, got, reason: triage.reason });
    }
  }
  return result;
}

function defaultAssess(message: BankMessage): Triage {
  return assessMessage(message.text, message.context);
}

const percent = (r: Ratio) => (r.total === 0 ? "—" : `${((100 * r.hit) / r.total).toFixed(1)} % (${r.hit}/${r.total})`);

/** The evaluation as plain text: the figures, the confusion matrix, and optionally the misses. */
export function formatEvaluation(name: string, e: Evaluation, showMisses = false): string {
  const skipped = e.skipped > 0 ? ` (${e.skipped} without a gold level left out)` : "";
  const lines = [`## ${name}: ${e.messages} messages${skipped}`, ""];
  lines.push(`exact level: ${percent(e.exact)}`);
  lines.push(`emergencies escalated to urgent or higher: ${percent(e.emergencyEscalated)}`);
  lines.push(`look-alike false alarms (urgent or higher): ${percent(e.lookalikeFalseAlarms)}`, "");
  lines.push("recall by level:");
  for (const level of TRIAGE_LEVELS) lines.push(`  ${level.padEnd(10)} ${percent(e.recallByLevel[level])}`);
  lines.push("", "recall by presentation (listed in the triage):");
  for (const [id, r] of Object.entries(e.recallByPresentation).sort()) lines.push(`  ${id.padEnd(22)} ${percent(r)}`);
  lines.push("", "confusion (rows gold, columns predicted):");
  lines.push(`  ${"".padEnd(10)} ${TRIAGE_LEVELS.map((l) => l.padStart(9)).join(" ")}`);
  for (const gold of TRIAGE_LEVELS) {
    lines.push(
      `  ${gold.padEnd(10)} ${TRIAGE_LEVELS.map((got) => String(e.confusion[gold][got]).padStart(9)).join(" ")}`,
    );
  }
  if (showMisses && e.misses.length > 0) {
    lines.push("", "misses:");
    for (const miss of e.misses)
      lines.push(`  ${miss.id} gold ${miss.gold}, got ${miss.got}: ${miss.text}\n      ${miss.reason}`);
  }
  return lines.join("\n");
}
