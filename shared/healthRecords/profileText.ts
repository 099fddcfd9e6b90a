import { ALLERGIES_ON_FILE } from "../core/promptMarkers";
import type { HealthProfile } from "./schemas";

const list = (items: string[]) => items.join("; ") || "none listed";

/**
 * A consented profile as plain text, for the model's instructions and tool results: what the
 * person typed, then what imported records add (allergies with reactions and criticality, active
 * conditions and medications, and the latest dose of each vaccine).
 */
export function profileText(profile: HealthProfile): string {
  const parts = [`conditions: ${list(profile.conditions)}`, `medications: ${list(profile.medications)}`];
  if (profile.allergies.length > 0) {
    const allergies = profile.allergies.map((allergy) => {
      const notes = [
        allergy.reactions.length > 0 ? `reaction: ${allergy.reactions.join(", ")}` : "",
        allergy.criticality ? `criticality ${allergy.criticality}` : "",
      ].filter(Boolean);
      return notes.length > 0 ? `${allergy.substance} (${notes.join("; ")})` : allergy.substance;
    });
    parts.push(`${ALLERGIES_ON_FILE} ${list(allergies)}`);
  } else {
    parts.push("allergies: none recorded");
  }
  if (profile.importedConditions.length > 0) {
    parts.push(`conditions from imported records: ${list(profile.importedConditions.map((item) => item.name))}`);
  }
  if (profile.importedMedications.length > 0) {
    parts.push(`medications from imported records: ${list(profile.importedMedications.map((item) => item.name))}`);
  }
  if (profile.immunizations.length > 0) {
    const latest = new Map<string, string>();
    for (const shot of profile.immunizations) {
      if (!latest.has(shot.vaccine)) latest.set(shot.vaccine, shot.date?.slice(0, 10) ?? "date unknown");
    }
    parts.push(`immunizations, latest dose of each: ${list([...latest].map(([name, date]) => `${name} ${date}`))}`);
  }
  return parts.join(". ");
}
