import { expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { Glob } from "bun";

const ROOT = join(import.meta.dir, "../..");
const MAX_LINES = 300;

/** Small files: a source file that outgrows this is split into named steps or modules. */
test(`no source file outside test/ is over ${MAX_LINES} lines`, () => {
  const large: string[] = [];
  for (const dir of ["api", "workers", "shared", "search-index", "scripts"]) {
    for (const file of new Glob(`${dir}/**/*.{ts,lua}`).scanSync(ROOT)) {
      const lines = readFileSync(join(ROOT, file), "utf8").split("\n").length;
      if (lines > MAX_LINES) large.push(`${file}: ${lines} lines`);
    }
  }
  expect(large).toEqual([]);
});
