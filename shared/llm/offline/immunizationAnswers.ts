import type { Json } from "./json";
import { type Immunization, immunizationsOf } from "./recordItems";
import { antigenLabel, antigensOf, type VaccineMention } from "./vaccines";

/**
 * Immunization answers from the profile's imported immunizations: the latest dose of the vaccine
 * asked about (matched by what it protects against, vaccines.ts) and how long ago that was, or
 * the latest dose of each vaccine on record.
 */
export const NO_IMMUNIZATIONS =
  "No immunizations are recorded in your profile. They come from health records you import (a FHIR R4 Bundle or a C-CDA document); if your records list vaccines, importing them adds them here. No vaccine recorded here does not mean you had none.";

const MAX_LISTED = 12;
const MAX_EARLIER = 5;

const plural = (n: number, unit: string) => `${n} ${unit}${n === 1 ? "" : "s"}`;

function parts(date: string): [number, number, number] | undefined {
  const match = /^(\d{4})-(\d{2})-(\d{2})$/.exec(date);
  return match ? [Number(match[1]), Number(match[2]), Number(match[3])] : undefined;
}

/** How long before `today` the day was: "27 years and 3 months ago", "5 days ago", "today". */
export function since(date: string, today: string): string {
  const from = parts(date);
  const to = parts(today);
  if (!from || !to) return "date not understood";
  const days = Math.round((Date.UTC(to[0], to[1] - 1, to[2]) - Date.UTC(from[0], from[1] - 1, from[2])) / 86_400_000);
  if (days < 0) return "a date after today";
  if (days === 0) return "today";
  const months = (to[0] - from[0]) * 12 + (to[1] - from[1]) - (to[2] < from[2] ? 1 : 0);
  if (months < 1) return days === 1 ? "yesterday" : `${days} days ago`;
  if (months < 12) return `${plural(months, "month")} ago`;
  const years = Math.floor(months / 12);
  const rest = months % 12;
  return `${plural(years, "year")}${rest ? ` and ${plural(rest, "month")}` : ""} ago`;
}

const given = (item: Immunization, today: string) =>
  item.date ? `${item.date} (${since(item.date, today)})` : "on a date the record does not give";
const named = (item: Immunization) => `${item.name}${item.cvx ? ` (CVX ${item.cvx})` : ""}`;

/** "tetanus", "tetanus, diphtheria or pertussis (Tdap)". */
function askedAbout(mentions: VaccineMention[]): string {
  const antigens = [...new Set(mentions.flatMap((mention) => mention.antigens))].map(antigenLabel);
  const list = antigens.length > 1 ? `${antigens.slice(0, -1).join(", ")} or ${antigens.at(-1)}` : (antigens[0] ?? "");
  const products = mentions.filter((mention) => mention.product).map((mention) => mention.name);
  return products.length ? `${list} (${products.join(", ")})` : list;
}

/** The latest dose of each vaccine, newest first, with how many doses are on record. */
function latestOfEach(items: Immunization[], today: string): string[] {
  const groups = new Map<string, Immunization[]>();
  for (const item of items) groups.set(item.name, [...(groups.get(item.name) ?? []), item]);
  const lines = [...groups.values()].slice(0, MAX_LISTED).map((doses) => {
    const [latest] = doses as [Immunization];
    return `- ${named(latest)}: ${given(latest, today)}${doses.length > 1 ? `; ${doses.length} doses on record` : ""}`;
  });
  if (groups.size > MAX_LISTED) lines.push(`- and ${groups.size - MAX_LISTED} more vaccines`);
  return lines;
}

const filesOf = (items: Immunization[]) => [...new Set(items.map((item) => item.file ?? "an imported record"))];

function askedAnswer(items: Immunization[], mentions: VaccineMention[], today: string): string {
  const wanted = new Set(mentions.flatMap((mention) => mention.antigens));
  const matches = items.filter((item) => antigensOf(item).some((antigen) => wanted.has(antigen)));
  const about = askedAbout(mentions);
  if (matches.length === 0) {
    return [
      `Your imported records list no vaccine against ${about}: none of their vaccines protects against it, by CDC's map of CVX vaccine codes to what they protect against, or by name. The vaccines they list, the latest dose of each:`,
      ...latestOfEach(items, today),
    ].join("\n");
  }
  const [latest, ...earlier] = matches as [Immunization, ...Immunization[]];
  const lines = [
    `Your latest vaccine against ${about} on record: ${named(latest)}, given ${given(latest, today)}.`,
    `Source: ${latest.source}.`,
  ];
  if (earlier.length > 0) {
    const byVaccine = new Map<string, string[]>();
    for (const item of earlier.slice(0, MAX_EARLIER)) {
      byVaccine.set(named(item), [...(byVaccine.get(named(item)) ?? []), item.date ?? "undated"]);
    }
    const listed = [...byVaccine].map(([name, dates]) => `${name} ${dates.join(", ")}`);
    const more = earlier.length > MAX_EARLIER ? `; and ${earlier.length - MAX_EARLIER} more` : "";
    lines.push(`Earlier doses on record: ${listed.join("; ")}${more}.`);
  }
  return lines.join("\n");
}

/** The answer to a vaccine question; `today` is YYYY-MM-DD. */
export function immunizationAnswer(profile: Json, mentions: VaccineMention[], today: string): string {
  const items = immunizationsOf(profile);
  if (items.length === 0) return NO_IMMUNIZATIONS;
  if (mentions.length > 0) return askedAnswer(items, mentions, today);
  return [
    `Immunizations in your imported records (${items.length} doses), the latest dose of each, newest first:`,
    ...latestOfEach(items, today),
    `From: ${filesOf(items).join(", ")}.`,
  ].join("\n");
}
