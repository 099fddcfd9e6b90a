import type { PlanId } from "../../core/plans";
import type { ModelEntry } from "../models";
import { HEALTH_PLANS } from "./modelList";

/** A configuration error worded like the env module's, so a bad value reads the same at boot. */
export const configError = (line: string) => new Error(`Invalid environment:\n  ${line}`);

/**
 * Reads CHAT_DEFAULT_MODEL: a bare `id` is the default of every plan that may use it, `plan=id`
 * sets one plan (and wins over a bare id), comma-separated, e.g. `gpt-4.1-mini, pro=gpt-4.1`.
 * Plans it does not name keep the catalog's first model they may use.
 */
export function defaultModels(value: string | undefined, catalog: readonly ModelEntry[]): Map<PlanId, ModelEntry> {
  const chosen = new Map<PlanId, ModelEntry>();
  const items = (value ?? "")
    .split(",")
    .map((item) => item.trim())
    .filter(Boolean);
  const find = (id: string) => {
    const model = catalog.find((entry) => entry.id === id);
    const known = catalog.map((entry) => entry.id).join(", ");
    if (!model) throw configError(`CHAT_DEFAULT_MODEL: "${id}" is not a configured model (${known})`);
    return model;
  };
  for (const item of items.filter((item) => !item.includes("="))) {
    const model = find(item);
    for (const plan of model.plans) chosen.set(plan, model);
  }
  for (const item of items.filter((item) => item.includes("="))) {
    const [plan = "", id = ""] = item.split("=").map((part) => part.trim());
    if (!HEALTH_PLANS.includes(plan as PlanId)) {
      throw configError(`CHAT_DEFAULT_MODEL: "${plan}" is not a plan with health chat (${HEALTH_PLANS.join(", ")})`);
    }
    const model = find(id);
    if (!model.plans.includes(plan as PlanId)) {
      throw configError(`CHAT_DEFAULT_MODEL: the ${plan} plan may not use ${id} (see its plans= option)`);
    }
    chosen.set(plan as PlanId, model);
  }
  return chosen;
}
