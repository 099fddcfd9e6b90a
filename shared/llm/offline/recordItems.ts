import { type Json, list, obj, str, strings } from "./json";
import { family, stem } from "./stems";
import { STOPWORDS, words } from "./text";

/**
 * The sections imported records add to a get_health_profile output (allergies, imported
 * conditions and medications, immunizations), read defensively, with where each item came from.
 */
export interface RecordItem {
  name: string;
  codes: { system?: string; code: string; display?: string }[];
  /** Where it came from, for a sentence: sourceOf. */
  source: string;
  /** The file it was imported from. */
  file?: string;
  item: Json;
}

export interface Allergy extends RecordItem {
  reactions: string[];
  criticality?: string;
  status?: string;
}

export interface Immunization extends RecordItem {
  vaccine: string;
  cvx?: string;
  /** The date as the record gives it, to the day ("1998-12-15"). */
  date?: string;
}

const day = (value: unknown) => str(value)?.slice(0, 10);

/** "ccd.xml (AllergyIntolerance, 2011-02-15)": the file it was imported from, the resource, its date. */
export function sourceOf(item: Json): string {
  const source = obj(item.source);
  const details = [str(source.resourceType), day(source.date)].filter(Boolean).join(", ");
  return `${str(source.file) ?? "an imported record"}${details ? ` (${details})` : ""}`;
}

function recordItem(value: unknown, nameKey: string): RecordItem {
  const item = obj(value);
  const codes = list(item.codes).flatMap((c) => {
    const code = str(obj(c).code);
    return code ? [{ code, system: str(obj(c).system), display: str(obj(c).display) }] : [];
  });
  const name = str(item[nameKey]) ?? codes[0]?.display ?? "unnamed";
  return { name, codes, source: sourceOf(item), file: str(obj(item.source).file), item };
}

export function allergiesOf(profile: Json): Allergy[] {
  return list(profile.allergies).map((value) => {
    const base = recordItem(value, "substance");
    return {
      ...base,
      reactions: strings(base.item.reactions),
      criticality: str(base.item.criticality),
      status: str(base.item.clinicalStatus),
    };
  });
}

export function immunizationsOf(profile: Json): Immunization[] {
  return list(profile.immunizations)
    .map((value) => {
      const base = recordItem(value, "vaccine");
      return { ...base, vaccine: base.name, cvx: str(base.item.cvx), date: day(base.item.date) };
    })
    .sort((a, b) => (b.date ?? "").localeCompare(a.date ?? ""));
}

export const conditionsOf = (profile: Json) => list(profile.importedConditions).map((v) => recordItem(v, "name"));
export const medicationsOf = (profile: Json) => list(profile.importedMedications).map((v) => recordItem(v, "name"));

/**
 * Words of a substance's name that do not say what it is ("ALLERGENIC EXTRACT, PENICILLIN" is
 * penicillin; "Allergy to peanut" is peanut), so they match nothing.
 */
const FORM = family(
  ...["allergenic", "extract", "product", "substance", "preparation", "containing", "agent"],
  ...["allergy", "allergic", "intolerance", "intolerant", "reaction"],
);

/** The stems that name a substance: its words, less everyday and form words. */
export function substanceStems(text: string): Set<string> {
  return new Set(
    words(text)
      .filter((word) => word.length >= 3 && !STOPWORDS.has(word))
      .map(stem)
      .filter((s) => !FORM.has(s)),
  );
}

/** An allergy's names: its substance and its codes' displays. */
export const allergyNames = (allergy: Allergy) => [allergy.name, ...allergy.codes.flatMap((c) => c.display ?? [])];

/** Whether the words name the allergy's substance ("penicillin" names "ALLERGENIC EXTRACT, PENICILLIN"). */
export function namesAllergy(text: string, allergy: Allergy): boolean {
  const asked = substanceStems(text);
  return allergyNames(allergy).some((name) => [...substanceStems(name)].some((s) => asked.has(s)));
}

/** "ASPIRIN (reaction: Wheezing; criticality high; active), from ccd.xml (AllergyIntolerance, 2011-02-15)". */
export function describeAllergy(allergy: Allergy): string {
  const notes = [
    allergy.reactions.length > 0 ? `reaction: ${allergy.reactions.join(", ")}` : "no reaction recorded",
    allergy.criticality ? `criticality ${allergy.criticality}` : "",
    allergy.status ?? "",
  ].filter(Boolean);
  return `${allergy.name} (${notes.join("; ")}), from ${allergy.source}`;
}
