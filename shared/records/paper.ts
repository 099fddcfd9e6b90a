import { type Static, Type as T } from "@sinclair/typebox";
import { Value } from "@sinclair/typebox/value";
import { Text as BoundedText } from "../core/text";

/**
 * One line of the arXiv metadata snapshot (Kaggle/Cornell `arxiv-metadata-oai-snapshot`), as read
 * from an ingest file. Extra keys are tolerated (the snapshot has grown fields over the years).
 */
const Nullable = <S extends ReturnType<typeof T.String>>(schema: S) => T.Union([schema, T.Null()]);

export const SourcePaperSchema = T.Object({
  id: BoundedText({ minLength: 1, maxLength: 64 }),
  submitter: T.Optional(Nullable(T.String())),
  authors: T.String(),
  title: BoundedText({ minLength: 1 }),
  comments: T.Optional(Nullable(T.String())),
  "journal-ref": T.Optional(Nullable(T.String())),
  doi: T.Optional(Nullable(T.String())),
  "report-no": T.Optional(Nullable(T.String())),
  categories: BoundedText({ minLength: 1 }),
  license: T.Optional(Nullable(T.String())),
  abstract: T.Optional(Nullable(T.String())),
  versions: T.Array(T.Object({ version: T.String(), created: T.String() }), { minItems: 1 }),
  update_date: T.Optional(Nullable(T.String())),
  authors_parsed: T.Optional(T.Array(T.Array(T.String()))),
});
export type SourcePaper = Static<typeof SourcePaperSchema>;

const Text = (description: string) => T.Union([T.String(), T.Null()], { description });

/** The paper record the API returns (the spec leaves it open; the README documents every field). */
export const PaperSchema = T.Object({
  id: T.String({ description: "arXiv id as in the source, without version: `0704.0001`, `hep-th/9901001`." }),
  extractedID: T.String({ description: "The id with its latest version suffix, e.g. `0704.0001v2`." }),
  baseArxivID: T.String({ description: "The id without any version suffix." }),
  title: T.String(),
  abstract: Text("Abstract, or null when the source has none."),
  authors: T.String({ description: "Author list as written in the source." }),
  authorsParsed: T.Array(T.Object({ last: T.String(), first: T.String(), suffix: T.String() })),
  submitter: Text("Who submitted the paper."),
  comments: Text("Author comments (pages, figures, venue)."),
  journalRef: Text("Journal reference."),
  doi: Text("DOI."),
  reportNo: Text("Report number(s)."),
  categories: T.Array(T.String(), { description: "arXiv categories, primary first." }),
  primaryCategory: T.String(),
  license: Text("Licence URL."),
  versions: T.Array(T.Object({ version: T.String(), created: T.String({ format: "date-time" }) })),
  submittedDate: T.String({ format: "date-time", description: "When version 1 was submitted (UTC)." }),
  lastUpdatedDate: T.String({ format: "date-time", description: "When the latest version was submitted (UTC)." }),
  links: T.Object({ abs: T.String(), pdf: T.String() }),
});
export type Paper = Static<typeof PaperSchema>;

const VERSION_SUFFIX = /v\d+$/;

/** `2401.01234v2` → `2401.01234`; `hep-th/9901001v1` → `hep-th/9901001`. */
export function baseArxivId(id: string): string {
  return id.trim().replace(VERSION_SUFFIX, "");
}

/** Source text fields keep their content; folded lines (`\n  `) become single spaces. */
function clean(value: string | null | undefined): string | null {
  if (value === null || value === undefined) return null;
  const text = value.replace(/\s*\n\s*/g, " ").trim();
  return text === "" ? null : text;
}

function isoDate(created: string): string {
  const time = Date.parse(created);
  if (Number.isNaN(time)) throw new Error(`Unreadable version date: ${created}`);
  return new Date(time).toISOString();
}

/** Parses and maps one snapshot line; throws with a reason when the line is not a usable record. */
export function parseSourceLine(line: string): SourcePaper {
  const value: unknown = JSON.parse(line);
  if (!Value.Check(SourcePaperSchema, value)) {
    const first = Value.Errors(SourcePaperSchema, value).First();
    throw new Error(`Not an arXiv metadata record: ${first?.path || "/"} ${first?.message}`);
  }
  return value;
}

export function toPaper(source: SourcePaper): Paper {
  const id = baseArxivId(source.id);
  const versions = source.versions
    .map((v) => ({ version: v.version, created: isoDate(v.created) }))
    .sort((a, b) => Number(a.version.slice(1)) - Number(b.version.slice(1)));
  const first = versions[0] as { version: string; created: string };
  const last = versions[versions.length - 1] as { version: string; created: string };
  const categories = source.categories.split(/\s+/).filter(Boolean);
  return {
    id,
    extractedID: `${id}${last.version}`,
    baseArxivID: id,
    title: clean(source.title) ?? "",
    abstract: clean(source.abstract),
    authors: clean(source.authors) ?? "",
    authorsParsed: (source.authors_parsed ?? []).map(([last = "", first = "", suffix = ""]) => ({
      last,
      first,
      suffix,
    })),
    submitter: clean(source.submitter),
    comments: clean(source.comments),
    journalRef: clean(source["journal-ref"]),
    doi: clean(source.doi),
    reportNo: clean(source["report-no"]),
    categories,
    primaryCategory: categories[0] as string,
    license: clean(source.license),
    versions,
    submittedDate: first.created,
    lastUpdatedDate: last.created,
    links: { abs: `https://arxiv.org/abs/${id}`, pdf: `https://arxiv.org/pdf/${id}` },
  };
}
