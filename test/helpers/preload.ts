import { afterAll } from "bun:test";
import { teardownWorld } from "./infra";

// Infrastructure is built lazily by the first test that asks for it, and torn down once at the end.
afterAll(async () => {
  await teardownWorld();
});
