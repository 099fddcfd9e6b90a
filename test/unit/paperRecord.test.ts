import { describe, expect, test } from "bun:test";
import { Value } from "@sinclair/typebox/value";
import {
  fromPaperHit,
  paperHitsAt,
  paperHitsJson,
  paperKey,
  toPaperDocument,
} from "../../shared/papers/search/document";
import { readPaperAnswer } from "../../shared/papers/search/titleSearch";
import { baseArxivId, PaperSchema, parseSourceLine, toPaper } from "../../shared/records/paper";
import "../../shared/core/formats";

const SOURCE = {
  id: "hep-th/9901001",
  submitter: "Yosuke Imamura",
  authors: "Yosuke Imamura and\n  J. Doe Jr",
  title: "String Junctions and Their Duals in\n  Heterotic String Theory",
  comments: "13 pages",
  "journal-ref": "Prog.Theor.Phys.101:1155-1164,1999",
  doi: "10.1143/PTP.101.1155",
  "report-no": "YITP-99-1",
  categories: "hep-th astro-ph.CO",
  license: null,
  abstract: "  We explicitly give\nthe correspondence.\n",
  versions: [
    { version: "v2", created: "Tue, 5 Jan 1999 21:36:42 GMT" },
    { version: "v1", created: "Fri, 1 Jan 1999 01:01:10 GMT" },
  ],
  update_date: "2008-11-13",
  authors_parsed: [
    ["Imamura", "Yosuke", ""],
    ["Doe", "J.", "Jr"],
  ],
};

describe("paper record", () => {
  test("maps a snapshot line to the documented record", () => {
    const paper = toPaper(parseSourceLine(JSON.stringify(SOURCE)));
    expect(Value.Check(PaperSchema, paper)).toBe(true);
    expect(paper).toMatchObject({
      id: "hep-th/9901001",
      extractedID: "hep-th/9901001v2",
      baseArxivID: "hep-th/9901001",
      title: "String Junctions and Their Duals in Heterotic String Theory",
      abstract: "We explicitly give the correspondence.",
      authors: "Yosuke Imamura and J. Doe Jr",
      journalRef: "Prog.Theor.Phys.101:1155-1164,1999",
      categories: ["hep-th", "astro-ph.CO"],
      primaryCategory: "hep-th",
      submittedDate: "1999-01-01T01:01:10.000Z",
      lastUpdatedDate: "1999-01-05T21:36:42.000Z",
      links: { abs: "https://arxiv.org/abs/hep-th/9901001", pdf: "https://arxiv.org/pdf/hep-th/9901001" },
    });
    expect(paper.versions.map((v) => v.version)).toEqual(["v1", "v2"]);
    expect(paper.authorsParsed[1]).toEqual({ last: "Doe", first: "J.", suffix: "Jr" });
  });

  test("ids lose their version suffix, old and new style", () => {
    expect(baseArxivId("2401.01234v2")).toBe("2401.01234");
    expect(baseArxivId("hep-th/9901001v11")).toBe("hep-th/9901001");
    expect(baseArxivId("0704.0001")).toBe("0704.0001");
  });

  test("unusable lines are refused with a reason", () => {
    expect(() => parseSourceLine("{")).toThrow();
    expect(() => parseSourceLine(JSON.stringify({ ...SOURCE, versions: [] }))).toThrow(/versions/);
    expect(() => parseSourceLine(JSON.stringify({ ...SOURCE, title: 5 }))).toThrow(/title/);
  });

  test("search documents carry a safe key and round-trip to the same record", () => {
    const paper = toPaper(parseSourceLine(JSON.stringify(SOURCE)));
    const document = toPaperDocument(paper);
    expect(document.pk).toBe("hep-th__9901001");
    expect(paperKey("0704.0001")).toBe("0704_0001");
    expect(document.pk).toMatch(/^[A-Za-z0-9_-]+$/);
    expect(document.categoryArchives).toEqual(["hep-th", "astro-ph"]);
    expect(document.authorNames).toEqual(["Yosuke Imamura", "J. Doe Jr"]);
    expect(fromPaperHit(document)).toEqual(paper);
    // The searched fields hold what the record says; display-only ones live in the record alone.
    expect(document.title).toBe(paper.title);
    expect(document.submittedTs).toBe(Date.parse(paper.submittedDate));
    expect(Object.keys(document)).not.toContain("authorsParsed");
    expect(Object.keys(document)).not.toContain("versions");
  });

  test("hits become the papers' JSON array without re-serialising", () => {
    const paper = toPaper(parseSourceLine(JSON.stringify(SOURCE)));
    const other = { ...paper, id: "0704.0001", title: 'A "quoted" title \\ with a backslash' };
    const hits = [toPaperDocument(paper), toPaperDocument(other)].map(({ record }) => ({ record }));
    expect(JSON.parse(Buffer.from(paperHitsJson(hits)).toString())).toEqual([paper, other]);
    expect(Buffer.from(paperHitsJson([])).toString()).toBe("[]");
  });

  test("search answers are read from their bytes, in Meilisearch's layouts and any other", () => {
    const paper = toPaper(parseSourceLine(JSON.stringify(SOURCE)));
    const other = { ...paper, id: "0704.0001", title: 'Ünïcode, "quotes" and a \\ backslash' };
    const hits = [paper, other].map((p) => ({ record: toPaperDocument(p).record }));
    const tail =
      '"query":"x \\"hits\\":[","processingTimeMs":1,"hitsPerPage":20,"page":1,"totalPages":1,"totalHits":42}';
    const answers = [
      `{"hits":${JSON.stringify(hits)},${tail}`,
      `{"indexUid":"test_papers","hits":${JSON.stringify(hits)},${tail}`,
      // Other layouts are parsed whole: keys in another order, a hit with another key.
      JSON.stringify({ totalHits: 42, hits }),
      JSON.stringify({ hits: hits.map((hit) => ({ ...hit, _rankingScore: 1 })), totalHits: 42 }),
    ];
    // The records of the first three are read from the bytes; the fourth's hits have another key.
    const fast = answers.map((answer) => {
      const bytes = Buffer.from(answer);
      return paperHitsAt(bytes, bytes.indexOf('"hits":') + '"hits":'.length) !== undefined;
    });
    expect(fast).toEqual([true, true, true, false]);
    for (const answer of answers) {
      const read = readPaperAnswer(Buffer.from(answer));
      expect(JSON.parse(Buffer.from(read.papers).toString())).toEqual([paper, other]);
      expect(read.totalHits).toBe(42);
    }
    const empty = readPaperAnswer(Buffer.from(`{"hits":[],${tail.replace("42", "0")}`));
    expect(Buffer.from(empty.papers).toString()).toBe("[]");
    expect(empty.totalHits).toBe(0);
  });
});
