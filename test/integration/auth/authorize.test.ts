import { beforeAll, describe, expect, test } from "bun:test";
import { authorize, isAuthorized, type Need, ScopeRefusal } from "../../../shared/auth/authorize";
import type { Scope } from "../../../shared/auth/scopes";
import { contextFor } from "../../../shared/context/ctx";
import type { Deps } from "../../../shared/context/deps";
import { AppError } from "../../../shared/core/errors";
import type { PlanId } from "../../../shared/core/plans";
import { saveProfile } from "../../../shared/health/profile";
import { createTestAccount } from "../../helpers/http";
import { testDeps } from "../../helpers/infra";

/**
 * The one authorization check (shared/auth/authorize.ts): each refusal, its message and kind, and
 * the order they come in: scope, then plan, then consent. Consent is read from a real database.
 */
let deps: Deps;
let consented: string;
let unconsented: string;

beforeAll(async () => {
  deps = await testDeps();
  consented = (await createTestAccount(deps, "go")).accountId;
  unconsented = (await createTestAccount(deps, "go")).accountId;
  await saveProfile({ sql: deps.sql, accountId: consented }, { consentGiven: true, conditions: [], medications: [] });
});

const asker = (accountId: string, plan: PlanId, scopes?: Scope[]) =>
  contextFor(deps, "req_authorize", { accountId, plan, ...(scopes ? { scopes: new Set(scopes) } : {}) });

/** What `authorize` threw, or "allowed". */
async function outcome(ctx: ReturnType<typeof asker>, need: Need): Promise<AppError | "allowed"> {
  try {
    await authorize(ctx, need);
    return "allowed";
  } catch (error) {
    if (error instanceof AppError) return error;
    throw error;
  }
}

const EVERYTHING: Need = { scope: ["health:read", "chat"], feature: "health", consent: true };

describe("authorize", () => {
  test("a caller that meets every requirement goes on; nothing asked, nothing refused", async () => {
    expect(await outcome(asker(consented, "go", ["health:read", "chat"]), EVERYTHING)).toBe("allowed");
    expect(await outcome(asker(unconsented, "free", []), {})).toBe("allowed");
  });

  test("without a scope list (an API key, a session, a worker) every scope is held", async () => {
    expect(await outcome(asker(consented, "go"), EVERYTHING)).toBe("allowed");
  });

  test("a missing scope: FORBIDDEN naming the first scope missing, as a ScopeRefusal", async () => {
    const refused = await outcome(asker(consented, "go", ["chat"]), EVERYTHING);
    expect(refused).toBeInstanceOf(ScopeRefusal);
    expect(refused).toMatchObject({ kind: "FORBIDDEN", scope: "health:read" });
    expect((refused as AppError).message).toBe(
      "This needs the `health:read` scope, which this OAuth token was not granted; reconnect and allow it.",
    );
    const second = await outcome(asker(consented, "go", ["health:read"]), EVERYTHING);
    expect(second).toMatchObject({ kind: "FORBIDDEN", scope: "chat" });
  });

  test("a plan without the feature: PLAN_REQUIRED naming plan and feature", async () => {
    const refused = await outcome(asker(consented, "free"), { feature: "health" });
    expect(refused).toMatchObject({
      kind: "PLAN_REQUIRED",
      message: "The free plan does not include health; upgrade to go or above.",
    });
  });

  test("no consent: CONSENT_REQUIRED, with the caller's message when it gives one", async () => {
    expect(await outcome(asker(unconsented, "go"), { consent: true })).toMatchObject({ kind: "CONSENT_REQUIRED" });
    expect(await outcome(asker(unconsented, "go"), { consent: "This prompt reads your profile." })).toMatchObject({
      kind: "CONSENT_REQUIRED",
      message: "This prompt reads your profile.",
    });
  });

  test("precedence: the scope before the plan, the plan before consent", async () => {
    // Every requirement fails for this caller; each step lifted reveals the next refusal.
    expect(await outcome(asker(unconsented, "free", []), EVERYTHING)).toBeInstanceOf(ScopeRefusal);
    expect(await outcome(asker(unconsented, "free", ["health:read", "chat"]), EVERYTHING)).toMatchObject({
      kind: "PLAN_REQUIRED",
    });
    expect(await outcome(asker(unconsented, "go", ["health:read", "chat"]), EVERYTHING)).toMatchObject({
      kind: "CONSENT_REQUIRED",
    });
  });
});

describe("isAuthorized", () => {
  test("false for each refusal, true when allowed", async () => {
    expect(await isAuthorized(asker(consented, "go", ["chat"]), EVERYTHING)).toBe(false);
    expect(await isAuthorized(asker(consented, "free"), EVERYTHING)).toBe(false);
    expect(await isAuthorized(asker(unconsented, "go"), EVERYTHING)).toBe(false);
    expect(await isAuthorized(asker(consented, "go"), EVERYTHING)).toBe(true);
  });

  test("anything that is not a refusal is thrown, not read as one", async () => {
    // Not an account id PostgreSQL accepts: the consent read fails, and that is no answer.
    const broken = { ...asker(consented, "go"), accountId: "not-a-uuid" };
    const thrown = await isAuthorized(broken, { consent: true }).then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(thrown).toBeDefined();
    expect((thrown as { kind?: string }).kind).not.toBe("CONSENT_REQUIRED");
  });
});
