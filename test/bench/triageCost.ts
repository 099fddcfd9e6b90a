/**
 * CPU cost of the triage engine per message, in process: every message of the triage banks
 * (development, held-out, Semigran) and the everyday questions, N rounds after warm-up.
 *   bun test/bench/triageCost.ts [rounds]        (default 10)
 * Prints process CPU µs per message (median of the rounds) for the whole `assessMessage`, and by
 * stage from a second pass that runs the same steps one by one: tokenize/lemmatize (spelling +
 * wink), measures, concept matching (signs and blockers), ConText (triggers, scopes, subjects) and
 * the rules (catalogue and general). That pass does each message's work twice and reads the clock
 * between steps, so its stages add up to more than the total. Process CPU includes the runtime's
 * JIT and GC threads: compare runs made back to back.
 */
import { join } from "node:path";
import { assessEvidence, assessMessage } from "../../shared/safety/assess";
import { applyConText } from "../../shared/safety/conText";
import { Evidence, findSigns } from "../../shared/safety/evidence";
import { readMeasures } from "../../shared/safety/measures";
import { parseText } from "../../shared/safety/nlp";
import { subjectAt } from "../../shared/safety/subject";

const FIXTURES = join(import.meta.dir, "..", "fixtures");
const rounds = Number(process.argv[2] ?? 10);

async function loadTexts(): Promise<string[]> {
  const texts: string[] = [];
  for (const bank of ["development", "held-out", "semigran-2015"]) {
    const { messages } = (await Bun.file(join(FIXTURES, "triage", `${bank}.json`)).json()) as {
      messages: { text: string }[];
    };
    texts.push(...messages.map((message) => message.text));
  }
  const { questions } = (await Bun.file(join(FIXTURES, "questions", "everyday.json")).json()) as {
    questions: { message: string }[];
  };
  texts.push(...questions.map((question) => question.message));
  return texts;
}

const cpu = () => {
  const { user, system } = process.cpuUsage();
  return user + system;
};

const STAGES = ["tokenize/lemmatize", "measures", "concept matching", "ConText + subject", "rules"] as const;

/** One pass through the engine's steps, adding each step's CPU µs to `spent`. */
function stagedPass(texts: string[], spent: number[]) {
  for (const text of texts) {
    const t0 = cpu();
    const parsed = parseText(text);
    const t1 = cpu();
    readMeasures(parsed);
    const t2 = cpu();
    const matches = findSigns(parsed);
    const t3 = cpu();
    applyConText(parsed, matches);
    for (const match of matches) subjectAt(parsed, match.start);
    const t4 = cpu();
    const evidence = new Evidence(text);
    const t5 = cpu();
    assessEvidence(evidence);
    const t6 = cpu();
    spent[0]! += t1 - t0;
    spent[1]! += t2 - t1;
    spent[2]! += t3 - t2;
    spent[3]! += t4 - t3;
    spent[4]! += t6 - t5;
  }
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? 0;

const texts = await loadTexts();
for (let i = 0; i < 3; i++) for (const text of texts) assessMessage(text);

const totals: number[] = [];
const byStage: number[][] = STAGES.map(() => []);
for (let round = 0; round < rounds; round++) {
  const started = cpu();
  for (const text of texts) assessMessage(text);
  totals.push((cpu() - started) / texts.length);
  const spent = STAGES.map(() => 0);
  stagedPass(texts, spent);
  for (const [i, us] of spent.entries()) byStage[i]?.push(us / texts.length);
}

console.log(`triage CPU per message, ${texts.length} messages, median of ${rounds} rounds`);
console.log(
  `  assessMessage        ${median(totals).toFixed(0).padStart(5)} µs  (rounds ${Math.min(...totals).toFixed(0)}–${Math.max(...totals).toFixed(0)})`,
);
STAGES.forEach((stage, i) => {
  console.log(
    `  ${stage.padEnd(20)} ${median(byStage[i] ?? [])
      .toFixed(0)
      .padStart(5)} µs`,
  );
});
