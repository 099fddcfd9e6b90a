import { PLANS, type PlanTable } from "../../shared/core/plans";

/** Every plan with its hourly limit raised out of reach: a bench measures the work, not 429s. */
export const UNLIMITED_PLANS = Object.fromEntries(
  Object.entries(PLANS).map(([id, plan]) => [id, { ...plan, requestsPerHour: 100_000_000 }]),
) as PlanTable;
