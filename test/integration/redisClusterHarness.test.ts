import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import Redis, { Cluster } from "ioredis";
import { waitFor } from "../../scripts/lib/processes";
import { CLUSTER_SLOTS, type RedisCluster, startRedisCluster } from "../helpers/redisCluster";

let cluster: RedisCluster;

beforeAll(async () => {
  cluster = await startRedisCluster();
}, 20_000);

afterAll(async () => {
  await cluster?.stop();
});

describe("private Redis Cluster harness", () => {
  test("3 primaries cover all slots; a killed primary's replica takes over with the replicated key", async () => {
    const primaries = await cluster.primaries();
    expect(primaries).toHaveLength(3);
    expect(primaries.reduce((n, p) => n + p.slotCount, 0)).toBe(CLUSTER_SLOTS);
    expect(cluster.nodes.split(",")).toHaveLength(6);

    const [host = "", port = ""] = cluster.nodes.split(",")[0]?.split(":") ?? [];
    const client = new Cluster([{ host, port: Number(port) }], { redisOptions: { connectTimeout: 1000 } });
    client.on("error", () => {});
    try {
      const key = `harness:${crypto.randomUUID()}`;
      // Replication is asynchronous: only a write a replica has acknowledged survives the failover.
      // WAIT has no key, so it rides in the SET's pipeline to reach the same primary's connection.
      const written = await client.pipeline().set(key, "survives").call("WAIT", "1", "1000").exec();
      expect(written).toEqual([
        [null, "OK"],
        [null, 1],
      ]);
      const owner = await cluster.primaryForKey(key);

      await cluster.kill(owner);
      const { ms, primary } = await cluster.waitForFailover(owner);
      expect(primary).not.toBe(owner);
      expect(ms).toBeLessThan(10_000);
      console.log(`redis cluster failover: ${ms} ms (${owner} → ${primary})`);

      const promoted = new Redis({ host: "127.0.0.1", port: primary, lazyConnect: true });
      expect(await promoted.get(key)).toBe("survives");
      promoted.disconnect();
      // The cluster client finds the new primary by itself (slot refresh after its connection errors).
      await waitFor("cluster client after failover", async () => (await client.get(key)) === "survives", 10_000);

      await cluster.restart(owner);
      expect((await cluster.primaries()).map((p) => p.port)).not.toContain(owner);
    } finally {
      client.disconnect();
    }
  }, 30_000);
});
