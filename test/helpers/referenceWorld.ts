import { createApp } from "../../api/app";
import type { Deps } from "../../shared/context/deps";
import type { Env } from "../../shared/core/env";
import { startWorkers } from "../../workers/runner";
import { createTestAccount, type TestApp } from "./http";
import { testDeps } from "./infra";
import { startUpstreamFixtures, type UpstreamFixtures, withUpstream } from "./upstream";

export interface ReferenceWorld {
  upstream: UpstreamFixtures;
  deps: Deps;
  app: TestApp;
  /** A `go` account's API key. */
  key: string;
  /** Before each test: the replay back to normal with no hits counted, and the reference cache empty. */
  reset(): Promise<void>;
  close(): Promise<void>;
}

/**
 * What the reference tests share: the recorded RxNav and openFDA replay, deps pointed at it with
 * `settings` (its timeouts), the two reference queues' workers, the app and a key.
 */
export async function referenceWorld(settings: Partial<Env>): Promise<ReferenceWorld> {
  const upstream = startUpstreamFixtures();
  const deps = withUpstream(await testDeps(), upstream, settings);
  const workers = await startWorkers(deps, { queues: ["rxnav", "openfda"] });
  const app = createApp(deps);
  const key = (await createTestAccount(deps, "go")).apiKey;
  return {
    upstream,
    deps,
    app,
    key,
    async reset() {
      upstream.mode = "normal";
      upstream.hits.clear();
      await deps.sql`delete from reference_cache`;
    },
    async close() {
      await workers.close();
      await upstream.stop();
    },
  };
}
