/** Whom a record is about, as it names them. */
export interface RecordPatient {
  name: string | null;
  birthDate: string | null;
}

/** A name's words, case and accents folded: "José  MARTÍNEZ" and "jose martinez" are one name. */
function nameWords(name: string): Set<string> {
  const folded = name
    .normalize("NFKD")
    .replace(/\p{M}/gu, "")
    .toLowerCase()
    .replace(/[^\p{L}\p{N}]+/gu, " ");
  return new Set(folded.split(" ").filter(Boolean));
}

/** Every word of the shorter name is in the longer: "Anna Smith" is "Anna Maria Smith". */
function namesAgree(a: string, b: string): boolean {
  const [short, long] = [nameWords(a), nameWords(b)].sort((x, y) => x.size - y.size) as [Set<string>, Set<string>];
  return short.size > 0 && [...short].every((word) => long.has(word));
}

/**
 * Whether two records may be about different people: their birth dates differ (when both give
 * one), or their names do (when both give one). Records that name no one are never a mismatch.
 */
export function differentPatients(a: RecordPatient, b: RecordPatient): boolean {
  if (a.birthDate && b.birthDate && a.birthDate.slice(0, 10) !== b.birthDate.slice(0, 10)) return true;
  return Boolean(a.name && b.name && !namesAgree(a.name, b.name));
}

/** "Jane Doe (born 1980-02-01)", or what of it the record gives. */
export function describePatient(patient: RecordPatient): string {
  const name = patient.name ?? "an unnamed patient";
  return patient.birthDate ? `${name} (born ${patient.birthDate.slice(0, 10)})` : name;
}
