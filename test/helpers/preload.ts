import { afterAll } from "bun:test";
import { checkingFetch, contractStats } from "./contract";
import { teardownWorld } from "./infra";

globalThis.fetch = checkingFetch(globalThis.fetch);

// Infrastructure is built lazily by the first test that asks for it, and torn down once at the end.
afterAll(async () => {
  if (contractStats.checked > 0) console.log(`contract: ${contractStats.checked} responses conform to /openapi.json`);
  await teardownWorld();
});
