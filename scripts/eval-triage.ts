/**
 * Prints the triage engine's figures for each bank in test/fixtures/triage/ (docs/safety.md).
 *   bun run eval:triage                      every bank present
 *   bun run eval:triage --bank development   one bank (use this while developing: never look at held-out)
 *   --misses                                 also list the messages whose level differs from gold
 */
import { readdirSync } from "node:fs";
import { join } from "node:path";
import { type BankMessage, evaluateBank, formatEvaluation } from "../shared/safety/evaluate";

const BANK_DIR = join(import.meta.dir, "..", "test", "fixtures", "triage");
const args = process.argv.slice(2);
const only = args.includes("--bank") ? args[args.indexOf("--bank") + 1] : undefined;
const showMisses = args.includes("--misses");

const banks = readdirSync(BANK_DIR)
  .filter((file) => file.endsWith(".json"))
  .map((file) => file.replace(/\.json$/, ""))
  .filter((name) => !only || name === only);
if (banks.length === 0) {
  console.error(only ? `No bank named ${only} in ${BANK_DIR}.` : `No banks in ${BANK_DIR}.`);
  process.exit(1);
}
for (const name of banks) {
  const bank = (await Bun.file(join(BANK_DIR, `${name}.json`)).json()) as { messages: BankMessage[] };
  console.log(formatEvaluation(name, evaluateBank(bank.messages), showMisses), "\n");
}
