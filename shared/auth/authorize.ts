import type { Ctx } from "../context/ctx";
import { AppError } from "../core/errors";
import { hasConsent } from "../health/consent";
import { type Feature, requireFeature } from "./access";
import { missingScope, type Scope } from "./scopes";

/**
 * The one authorization check. Every surface calls it before the work it guards: the tool runner
 * (chat and MCP), MCP resources, prompts and completions, and the REST admission hooks. It decides,
 * in this order, the OAuth scope, the plan and consent, so a caller hears first about the refusal
 * nearest to it: a token not granted a scope learns nothing about the account's plan or data.
 *
 * Consent here is the refusal at the edge (`consent`). The health verbs keep their own consent step
 * because it is not only a check: a write holds the consent row until its transaction commits (a
 * concurrent withdrawal cannot leave data behind), and a list without consent is empty, not refused.
 */
export interface Need {
  /** The OAuth scope, or every one of the scopes, the caller's token must hold. */
  scope?: Scope | readonly Scope[];
  /** A plan feature the account's plan must include. */
  feature?: Feature;
  /** Refuse without consent to store health data; a string is the refusal's message. */
  consent?: true | string;
}

/** Who asks: the plan table, the account's plan and, for an OAuth token, its scopes. */
export type Asker = Pick<Ctx, "plans" | "plan" | "scopes">;
/** Consent is read from the database: a check that asks for it needs the account and the client. */
export type ConsentAsker = Asker & Pick<Ctx, "sql" | "accountId">;

/**
 * A scope refusal: FORBIDDEN in the error table, carrying the scope so an MCP answer can name it
 * in `data.scope` (a client reconnects asking for it).
 */
export class ScopeRefusal extends AppError {
  constructor(
    readonly scope: Scope,
    message: string,
  ) {
    super("FORBIDDEN", message);
    this.name = "ScopeRefusal";
  }
}

const CONSENT_MESSAGE = "Health data needs consent: save the profile with consentGiven: true first.";

/** Throws the first refusal (scope, then plan, then consent); resolves when the caller may go on. */
export async function authorize(ctx: Asker, need: Omit<Need, "consent">): Promise<void>;
export async function authorize(ctx: ConsentAsker, need: Need): Promise<void>;
export function authorize(ctx: Asker & Partial<ConsentAsker>, need: Need): Promise<void> {
  return check(ctx, need);
}

/**
 * The same check for a need without consent, which reads nothing: it throws the first refusal
 * (scope, then plan) or returns. Synchronous, for the admission of every request, where an awaited
 * check would cost each one a promise and a turn of the microtask queue.
 */
export function authorizeNow(ctx: Asker, need: Omit<Need, "consent">): void {
  if (need.scope !== undefined) {
    for (const scope of typeof need.scope === "string" ? [need.scope] : need.scope) {
      const refusal = missingScope(ctx, scope);
      if (refusal) throw new ScopeRefusal(scope, refusal);
    }
  }
  if (need.feature) requireFeature(ctx.plans, ctx, need.feature);
}

async function check(ctx: Asker & Partial<ConsentAsker>, need: Need): Promise<void> {
  authorizeNow(ctx, need);
  if (need.consent === undefined) return;
  if (!ctx.sql || !ctx.accountId) throw new Error("authorize: a consent check needs sql and accountId");
  if (!(await hasConsent(ctx.sql, ctx.accountId))) {
    throw new AppError("CONSENT_REQUIRED", need.consent === true ? CONSENT_MESSAGE : need.consent);
  }
}

/**
 * Whether `authorize` lets the caller go on, for the callers that leave out what it refuses rather
 * than fail (resources/list, completions). Anything else it throws (a database outage) is rethrown.
 */
export async function isAuthorized(ctx: Asker, need: Omit<Need, "consent">): Promise<boolean>;
export async function isAuthorized(ctx: ConsentAsker, need: Need): Promise<boolean>;
export async function isAuthorized(ctx: Asker & Partial<ConsentAsker>, need: Need): Promise<boolean> {
  try {
    await check(ctx, need);
    return true;
  } catch (error) {
    if (isRefusal(error)) return false;
    throw error;
  }
}

function isRefusal(error: unknown): boolean {
  return error instanceof ScopeRefusal || (error instanceof AppError && REFUSED.has(error.kind));
}

const REFUSED = new Set<AppError["kind"]>(["PLAN_REQUIRED", "CONSENT_REQUIRED"]);
