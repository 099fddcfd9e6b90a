import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { seedDemoConditions } from "../../../scripts/lib/seedConditions";
import { indexUid } from "../../../search-index/indexes";
import { countConditions, deleteConditions, findConditionById } from "../../../shared/conditions/repository";
import { conditionKey } from "../../../shared/conditions/search/document";
import type { Deps } from "../../../shared/context/deps";
import type { Env } from "../../../shared/core/env";
import { applyIndexSettings } from "../../../shared/indexing/settings";
import { startWorkers, type Workers } from "../../../workers/runner";
import { processEnvFor, testDeps, testWorld } from "../../helpers/infra";

const FIXTURES = `${import.meta.dir}/../../fixtures/mondo`;
const IDS = ["MONDO:0000001", "MONDO:0005087", "MONDO:0004979", "MONDO:0005405"];
const OBSOLETE = "MONDO:9999901";

let deps: Deps;
let env: Env;
let workers: Workers;

beforeAll(async () => {
  const base = await testDeps();
  // An index of its own, so what other test files load cannot change the counts here.
  env = { ...(await testWorld()).env, MEILI_INDEX_PREFIX: `${base.env.MEILI_INDEX_PREFIX}load_` };
  deps = { ...base, env: { ...base.env, MEILI_INDEX_PREFIX: env.MEILI_INDEX_PREFIX } };
  await applyIndexSettings(deps.meili, env.MEILI_INDEX_PREFIX);
  workers = await startWorkers(deps);
});

afterAll(async () => {
  await workers.close();
  // The conditions table is shared by the run; leave none of the constructed terms behind.
  await deleteConditions(deps.sql, [...IDS, OBSOLETE]);
});

async function load(path: string) {
  const cli = Bun.spawn([process.execPath, "scripts/mondo-load.ts", path], {
    env: processEnvFor(env),
    stdout: "pipe",
    stderr: "pipe",
  });
  const code = await cli.exited;
  const stdout = await new Response(cli.stdout).text();
  return { code, summary: stdout ? JSON.parse(stdout) : undefined, stderr: await new Response(cli.stderr).text() };
}

function index() {
  return deps.meili.index(indexUid(env.MEILI_INDEX_PREFIX, "conditions"));
}

async function searchable(id: string): Promise<boolean> {
  return index()
    .getDocument(conditionKey(id))
    .then(() => true)
    .catch(() => false);
}

async function expectTree() {
  for (const id of IDS) {
    expect(await findConditionById(deps.sql, id)).toBeDefined();
    expect(await searchable(id)).toBe(true);
  }
  expect(await findConditionById(deps.sql, OBSOLETE)).toBeUndefined();
  expect(await searchable(OBSOLETE)).toBe(false);
  const asthma = await findConditionById(deps.sql, "MONDO:0004979");
  expect(asthma).toMatchObject({ label: "asthma", parents: ["MONDO:0005087"], descendants: 1 });
  expect(asthma?.xrefs).toContain("OMIM:600807");
  expect(asthma?.synonyms).toContainEqual(expect.objectContaining({ text: "bronchial asthma" }));
  expect((await findConditionById(deps.sql, "MONDO:0000001"))?.descendants).toBe(3);
  return asthma;
}

describe("bun run mondo:load", () => {
  test("OBO: terms with definitions and scoped synonyms; obsolete and non-MONDO terms left out; a re-run changes nothing", async () => {
    const first = await load(`${FIXTURES}/mini.obo`);
    expect(first.code).toBe(0);
    expect(first.summary).toMatchObject({ format: "obo", terms: 4, obsoleteSkipped: 1, invalid: 0 });
    const asthma = await expectTree();
    expect(asthma?.definition).toContain('wheezing (a "whistling" sound while breathing)');
    expect(asthma?.synonyms).toEqual([
      { text: "asthma, susceptibility to", scope: "RELATED" },
      { text: "asthmatic", scope: "RELATED" },
      { text: "bronchial asthma", scope: "EXACT" },
      { text: "AS", scope: "EXACT" },
    ]);
    expect(asthma?.xrefs).toEqual([
      "DOID:2841",
      "ICD10CM:J45",
      "MESH:D001249",
      "NCIT:C28397",
      "OMIM:600807",
      "UMLS:C0004096",
    ]);

    const again = await load(`${FIXTURES}/mini.obo`);
    expect(again.summary).toMatchObject({ terms: 4, obsoleteSkipped: 1 });
    await expectTree();
    expect((await index().getStats()).numberOfDocuments).toBe(4);
  }, 60_000);

  test("OBO Graphs JSON (mondo.json), gzip: the same terms, synonym scopes from the predicates", async () => {
    const path = `${env.DATA_DIR}/mondo.json.gz`;
    await Bun.write(path, Bun.gzipSync(await Bun.file(`${FIXTURES}/mini.json`).bytes()));
    const result = await load(path);
    expect(result.code).toBe(0);
    expect(result.summary).toMatchObject({ format: "obographs", terms: 4, obsoleteSkipped: 1 });
    const asthma = await expectTree();
    expect(asthma?.synonyms).toContainEqual({ text: "AS", scope: "EXACT" });
    expect(asthma?.synonyms).toContainEqual({ text: "asthmatic", scope: "RELATED" });
    expect(asthma?.definition).toStartWith("A bronchial disease");
  }, 60_000);

  test("JSON Lines extract: a term that became obsolete is removed; a bad line is reported, not fatal", async () => {
    // A first load where the term is still current, then the fixture marks it obsolete.
    const path = `${env.DATA_DIR}/current.jsonl`;
    await Bun.write(
      path,
      `${JSON.stringify({ id: OBSOLETE, label: "asthmatic bronchitis", synonyms: [], xrefs: [], parents: [], obsolete: false })}\n`,
    );
    expect((await load(path)).code).toBe(0);
    expect(await searchable(OBSOLETE)).toBe(true);

    const result = await load(`${FIXTURES}/mini.jsonl`);
    expect(result.code).toBe(0);
    expect(result.summary).toMatchObject({ format: "jsonl", terms: 4, obsoleteSkipped: 1, invalid: 1 });
    expect(result.summary.invalidSamples[0]).toEqual({ line: 6, reason: "id is not a MONDO id" });
    const asthma = await expectTree();
    expect(asthma?.definition).toBeNull();
    expect(asthma?.synonyms).toEqual([{ text: "bronchial asthma", scope: null }]);
  }, 60_000);

  test("a file that is not MONDO, or no file, is refused with exit code 2", async () => {
    const path = `${env.DATA_DIR}/not-mondo.txt`;
    await Bun.write(path, "hello\n");
    const bad = await load(path);
    expect(bad.code).toBe(2);
    expect(JSON.parse(bad.stderr).error.code).toBe("BAD_REQUEST");
    expect((await load(`${env.DATA_DIR}/missing.obo`)).code).toBe(2);
  });

  test("seedDemoConditions loads the bundled slice when the table is empty, and only then", async () => {
    await deps.sql`delete from conditions`;
    await seedDemoConditions(env, processEnvFor(env));
    const count = await countConditions(deps.sql);
    expect(count).toBe(1669);
    expect(await findConditionById(deps.sql, "MONDO:0100096")).toMatchObject({ label: "COVID-19" });
    await deleteConditions(deps.sql, ["MONDO:0100096"]);
    await seedDemoConditions(env, processEnvFor(env));
    expect(await countConditions(deps.sql)).toBe(count - 1);
  }, 60_000);
});
