import { Type as T } from "@sinclair/typebox";

/**
 * The plan table: the only place plan facts live. Hourly limits for free, plus and pro are the
 * spec's (section 8); the spec does not give Go's, so it sits between free and plus at 1,800.
 * `maxPageSize` caps paper-search `limit`; `health` opens `/api/v1/health/*` and the health tools.
 */
export const PLANS = {
  free: { requestsPerHour: 1200, maxPageSize: 25, health: false },
  go: { requestsPerHour: 1800, maxPageSize: 50, health: true },
  plus: { requestsPerHour: 2400, maxPageSize: 100, health: true },
  pro: { requestsPerHour: 3600, maxPageSize: 100, health: true },
} as const satisfies Record<string, PlanLimits>;

export interface PlanLimits {
  requestsPerHour: number;
  maxPageSize: number;
  health: boolean;
}

export type PlanId = keyof typeof PLANS;
export type PlanTable = Record<PlanId, PlanLimits>;

export const PLAN_IDS = Object.keys(PLANS) as PlanId[];
export const PlanIdSchema = T.Union([T.Literal("free"), T.Literal("go"), T.Literal("plus"), T.Literal("pro")]);

export function isPlanId(value: string): value is PlanId {
  return Object.hasOwn(PLANS, value);
}
