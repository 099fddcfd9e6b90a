import { type ErrorDetail, invalidRequest } from "../core/errors";
import type { NewEntry } from "./logRepository";
import type { EntryInput, LogStatus } from "./schemas";
import { uniqueTrimmed } from "./text";

/**
 * The rules of an entry that a schema cannot say: at least one observation, temperature and unit
 * together, temperature stored to one decimal place (and still positive after rounding).
 * Returns the entry as stored, without its id.
 */
export function normalizeEntry(input: EntryInput): Omit<NewEntry, "id"> {
  const details: ErrorDetail[] = [];
  const symptoms = uniqueTrimmed(input.symptoms);
  const note = input.note?.trim() || null;
  if ((input.temperature === undefined) !== (input.temperatureUnit === undefined)) {
    const missing = input.temperature === undefined ? "temperature" : "temperatureUnit";
    details.push({ in: "body", path: `/${missing}`, message: "temperature and temperatureUnit are sent together" });
  }
  const temperature = input.temperature === undefined ? null : roundToTenth(input.temperature);
  if (temperature !== null && temperature <= 0) {
    details.push({ in: "body", path: "/temperature", message: "Expected a positive temperature to one decimal place" });
  }
  const observed =
    input.severity !== undefined ||
    symptoms.length > 0 ||
    temperature !== null ||
    input.activityImpact !== undefined ||
    note !== null;
  if (!observed) {
    details.push({
      in: "body",
      path: "/",
      message: "An entry needs at least one observation: severity, symptoms, temperature, activityImpact or note",
    });
  }
  if (details.length > 0) throw invalidRequest(details);
  return {
    severity: input.severity ?? null,
    symptoms,
    temperature,
    temperatureUnit: input.temperatureUnit ?? null,
    activityImpact: input.activityImpact ?? null,
    note,
  };
}

/** Decimal rounding, half away from zero, on the number as written (38.25 → 38.3, not 38.2). */
export function roundToTenth(value: number): number {
  if (value < 0.05) return 0;
  return Number(`${Math.round(Number(`${value}e1`))}e-1`);
}

/** Which status moves a log allows; a move to the current status changes nothing. */
export const STATUS_MOVES: Record<LogStatus, readonly LogStatus[]> = {
  active: ["resolved", "archived"],
  resolved: ["active", "archived"],
  archived: ["active"],
};

export function canMove(from: LogStatus, to: LogStatus): boolean {
  return from === to || STATUS_MOVES[from].includes(to);
}
