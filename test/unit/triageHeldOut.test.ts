import { describe, expect, test } from "bun:test";
import { type BankMessage, evaluateBank } from "../../shared/safety/evaluate";
import heldOut from "../fixtures/triage/held-out.json";
import semigran from "../fixtures/triage/semigran-2015.json";

/**
 * The held-out bank (written blind, never tuned against) and the published Semigran vignettes, held
 * at the level the engine reached (docs/safety.md "Measured"). These are floors against regression,
 * not the goal: the goal (every emergency escalated, at most 5 % false alarms) is not met yet.
 * Never change the engine to pass a message of these banks; add a similar one to the development bank.
 */
describe("triage on messages it was never tuned on", () => {
  test("held-out bank: at least 89 % of emergencies escalated, at most 10 % of look-alikes raised", () => {
    const result = evaluateBank(heldOut.messages as BankMessage[]);
    expect(result.messages).toBe(260);
    const escalated = result.emergencyEscalated.hit / result.emergencyEscalated.total;
    const falseAlarms = result.lookalikeFalseAlarms.hit / result.lookalikeFalseAlarms.total;
    expect(escalated).toBeGreaterThanOrEqual(0.89);
    expect(falseAlarms).toBeLessThanOrEqual(0.1);
  });

  test("Semigran 2015 vignettes: at least 7 of 15 emergent cases escalated", () => {
    const result = evaluateBank(semigran.messages as unknown as BankMessage[]);
    expect(result.emergencyEscalated.total).toBe(15);
    expect(result.emergencyEscalated.hit).toBeGreaterThanOrEqual(7);
  });
});

describe("bun run eval:triage", () => {
  test("prints, for every bank, recall per level and presentation, false alarms and a confusion matrix", async () => {
    const run = Bun.spawn([process.execPath, "scripts/eval-triage.ts"], { stdout: "pipe", stderr: "pipe" });
    const output = await new Response(run.stdout).text();
    expect(await run.exited).toBe(0);
    for (const bank of ["development", "held-out", "semigran-2015"]) expect(output).toContain(`## ${bank}:`);
    for (const part of ["recall by level", "recall by presentation", "look-alike false alarms", "confusion"]) {
      expect(output.split(part).length - 1).toBe(3);
    }
  }, 60_000);
});
