import { rmSync } from "node:fs";
import { mkdir, mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Subprocess } from "bun";
import { freePort, StartupError, stopProcess, tcpOpen, waitFor } from "../../scripts/lib/processes";

/**
 * A private Redis Cluster for tests: 3 primaries with one replica each, on free loopback ports and
 * temp directories of its own, so a test may kill a primary and watch its replica take over without
 * touching the machine's shared Redis. Replication is asynchronous: a write the primary acknowledged
 * but had not yet sent on is lost when that primary dies, whatever `appendOnly` says (it only
 * protects a node's own restart). A caller that must not lose a write waits for it with `WAIT 1 <ms>`.
 */

export const CLUSTER_SLOTS = 16384;

export interface RedisClusterOptions {
  /** Appended to every node's redis-server arguments (a later directive wins, e.g. another maxmemory-policy). */
  extraArgs?: string[];
  /** How long a silent node takes to be suspected; failover follows in about 2× this. Default 1000 ms. */
  nodeTimeoutMs?: number;
  appendOnly?: boolean;
  /** Limit for startup and for each wait (failover, restart). Default 20 s. */
  timeoutMs?: number;
}

/** Inclusive: [from, to]. */
export type SlotRange = [number, number];

export interface ClusterPrimary {
  port: number;
  id: string;
  slots: SlotRange[];
  slotCount: number;
}

interface Node {
  port: number;
  busPort: number;
  dir: string;
  child?: Subprocess;
}

interface NodeLine {
  id: string;
  port: number;
  flags: string[];
  slots: SlotRange[];
}

/** Runs a command to the end; a hung one is killed after `timeoutMs` so a wait never hangs on it. */
async function run(args: string[], timeoutMs: number): Promise<string> {
  const child = Bun.spawn(args, { stdout: "pipe", stderr: "pipe" });
  const timer = setTimeout(() => child.kill("SIGKILL"), timeoutMs);
  const [stdout, stderr] = await Promise.all([new Response(child.stdout).text(), new Response(child.stderr).text()]);
  await child.exited;
  clearTimeout(timer);
  if (child.exitCode !== 0)
    throw new Error(`${args.join(" ")} failed (${child.exitCode ?? child.signalCode}): ${stdout}${stderr}`);
  return stdout.trim();
}

/** One command to one node; `-e` turns an error reply into a failure instead of printed text. */
function cli(port: number, ...args: string[]): Promise<string> {
  return run(["redis-cli", "-e", "-h", "127.0.0.1", "-p", String(port), ...args], 3000);
}

/** `CLUSTER NODES` lines; slot entries in brackets (a migration in progress) are not ownership. */
function parseNodes(text: string): NodeLine[] {
  return text.split("\n").map((line) => {
    const [id = "", address = "", flags = "", , , , , , ...rest] = line.trim().split(" ");
    const slots = rest
      .filter((s) => !s.startsWith("["))
      .map((s) => s.split("-").map(Number))
      .map(([from = 0, to = from]) => [from, to] as SlotRange);
    return { id, port: Number(/:(\d+)@/.exec(address)?.[1]), flags: flags.split(","), slots };
  });
}

const slotCount = (slots: SlotRange[]) => slots.reduce((n, [from, to]) => n + to - from + 1, 0);
const isPrimary = (n: NodeLine) => n.flags.includes("master") && !n.flags.includes("fail") && n.slots.length > 0;

/** 12 distinct free ports: a client port and a cluster bus port per node (port + 10000 may not exist). */
function freePorts(count: number): number[] {
  const ports = new Set<number>();
  while (ports.size < count) ports.add(freePort());
  return [...ports];
}

function serverArgs(node: Node, options: RedisClusterOptions): string[] {
  const config: Record<string, string> = {
    port: String(node.port),
    "cluster-port": String(node.busPort),
    bind: "127.0.0.1",
    dir: node.dir,
    logfile: join(node.dir, "redis.log"),
    "cluster-enabled": "yes",
    "cluster-config-file": join(node.dir, "nodes.conf"),
    "cluster-node-timeout": String(options.nodeTimeoutMs ?? 1000),
    // 0: a replica cut off for a while may still take over (a test wants a failover, not a stall).
    "cluster-replica-validity-factor": "0",
    "cluster-allow-reads-when-down": "no",
    // A replica's first full sync would otherwise wait 5 s for other replicas to share it.
    "repl-diskless-sync-delay": "0",
    save: "",
    appendonly: options.appendOnly ? "yes" : "no",
    "maxmemory-policy": "noeviction",
  };
  const args = Object.entries(config).flatMap(([name, value]) => [`--${name}`, value]);
  return ["redis-server", ...args, ...(options.extraArgs ?? [])];
}

async function startNode(node: Node, options: RedisClusterOptions): Promise<void> {
  const child = Bun.spawn(serverArgs(node, options), { stdout: "ignore", stderr: "pipe" });
  node.child = child;
  await waitFor(`redis cluster node ${node.port}`, async () => {
    if (child.exitCode !== null) {
      const log = await Bun.file(join(node.dir, "redis.log"))
        .text()
        .catch(() => "");
      throw new StartupError(
        `redis-server ${node.port} exited: ${await new Response(child.stderr).text()}${log.slice(-2000)}`,
      );
    }
    return tcpOpen("127.0.0.1", node.port);
  });
}

/** waitFor, plus the cluster's own view on timeout: a failing test shows what the cluster looked like. */
async function waitForCluster(what: string, check: () => Promise<boolean>, timeoutMs: number, port: number) {
  try {
    await waitFor(what, check, timeoutMs);
  } catch (error) {
    const view = await cli(port, "CLUSTER", "NODES").catch((e: Error) => e.message);
    throw new StartupError(`${(error as Error).message}; CLUSTER NODES on ${port}:\n${view}`);
  }
}

/**
 * Clusters not yet stopped. On exit without stop() (a crash, a hook timeout) their nodes are killed and
 * their directories removed, so no redis-server outlives the test process.
 */
const unstopped = new Set<() => void>();
process.on("exit", () => {
  for (const cleanup of unstopped) cleanup();
});

/**
 * Starts the cluster and resolves once every node says `cluster_state:ok` and every replica's link
 * to its primary is up. On any failure the nodes are stopped and the directories removed.
 */
export async function startRedisCluster(options: RedisClusterOptions = {}) {
  const timeoutMs = options.timeoutMs ?? 20_000;
  const root = await mkdtemp(join(tmpdir(), "phs-redis-cluster-"));
  const ports = freePorts(12);
  const nodes: Node[] = Array.from({ length: 6 }, (_, i) => ({
    port: ports[i] ?? 0,
    busPort: ports[i + 6] ?? 0,
    dir: join(root, `node-${i}`),
  }));
  const killed = new Map<number, { at: number; slots: SlotRange[] }>();
  const byPort = (port: number) => {
    const node = nodes.find((n) => n.port === port);
    if (!node) throw new Error(`port ${port} is not a node of this cluster`);
    return node;
  };
  const alive = () => nodes.filter((n) => n.child && !killed.has(n.port));
  const topology = async () => parseNodes(await cli(alive()[0]?.port ?? 0, "CLUSTER", "NODES"));
  const stateOk = async (port: number) => (await cli(port, "CLUSTER", "INFO")).includes("cluster_state:ok");
  const replicating = async (port: number) => /master_link_status:up/.test(await cli(port, "INFO", "replication"));

  const primaries = async (): Promise<ClusterPrimary[]> =>
    (await topology())
      .filter(isPrimary)
      .map(({ id, port, slots }) => ({ id, port, slots, slotCount: slotCount(slots) }))
      .sort((a, b) => (a.slots[0]?.[0] ?? 0) - (b.slots[0]?.[0] ?? 0));
  const primaryForSlot = async (slot: number): Promise<number> => {
    const owner = (await primaries()).find((p) => p.slots.some(([from, to]) => slot >= from && slot <= to));
    if (!owner) throw new Error(`no live primary serves slot ${slot}`);
    return owner.port;
  };
  const cleanupAtExit = () => {
    for (const n of nodes) n.child?.kill("SIGKILL");
    rmSync(root, { recursive: true, force: true });
  };
  unstopped.add(cleanupAtExit);
  const stop = async () => {
    await Promise.all(nodes.map(async (n) => n.child && stopProcess(n.child, 2000)));
    await rm(root, { recursive: true, force: true });
    unstopped.delete(cleanupAtExit);
  };

  try {
    for (const node of nodes) await mkdir(node.dir);
    await Promise.all(nodes.map((n) => startNode(n, options)));
    const addresses = nodes.map((n) => `127.0.0.1:${n.port}`);
    await run(
      ["redis-cli", "--cluster", "create", ...addresses, "--cluster-replicas", "1", "--cluster-yes"],
      timeoutMs,
    );
    await waitForCluster(
      "redis cluster (cluster_state:ok on all 6 nodes, 3 replicas linked)",
      async () => {
        const states = await Promise.all(ports.slice(0, 6).map(stateOk));
        const links = await Promise.all(ports.slice(0, 6).map(replicating));
        return states.every(Boolean) && links.filter(Boolean).length === 3;
      },
      timeoutMs,
      ports[0] ?? 0,
    );
  } catch (error) {
    await stop();
    throw error;
  }
  const firstPrimaries = (await primaries()).map((p) => p.port);
  const seeds = [...firstPrimaries, ...nodes.map((n) => n.port).filter((p) => !firstPrimaries.includes(p))];

  return {
    /** `127.0.0.1:port` seeds, comma-separated, the primaries first. */
    nodes: seeds.map((p) => `127.0.0.1:${p}`).join(","),
    ports: seeds,
    primaries,
    primaryForSlot,
    primaryForKey: async (key: string) =>
      primaryForSlot(Number(await cli(alive()[0]?.port ?? 0, "CLUSTER", "KEYSLOT", key))),
    /** SIGKILL, like a crash: no shutdown, no last words to the replicas. */
    async kill(port: number): Promise<void> {
      const node = byPort(port);
      const slots = (await topology()).find((n) => n.port === port)?.slots ?? [];
      killed.set(port, { at: performance.now(), slots });
      node.child?.kill("SIGKILL");
      await node.child?.exited;
    },
    /**
     * Resolves when every surviving node is `cluster_state:ok` again and the dead primary's slots are
     * served by a live primary (its promoted replica). Returns that port and the ms since the kill.
     */
    async waitForFailover(deadPort: number): Promise<{ ms: number; primary: number }> {
      const dead = killed.get(deadPort);
      const firstSlot = dead?.slots[0]?.[0];
      if (!dead || firstSlot === undefined) throw new Error(`port ${deadPort} is not a primary killed by kill()`);
      let primary = 0;
      await waitForCluster(
        `failover of ${deadPort}`,
        async () => {
          const views = await Promise.all(alive().map(async (n) => parseNodes(await cli(n.port, "CLUSTER", "NODES"))));
          const states = await Promise.all(alive().map((n) => stateOk(n.port)));
          const moved = views.every((view) => {
            const owners = view.filter(isPrimary);
            return (
              slotCount(owners.flatMap((o) => o.slots)) === CLUSTER_SLOTS && owners.every((o) => o.port !== deadPort)
            );
          });
          primary = moved ? await primaryForSlot(firstSlot) : 0;
          return moved && states.every(Boolean);
        },
        timeoutMs,
        alive()[0]?.port ?? 0,
      );
      return { ms: Math.round(performance.now() - dead.at), primary };
    },
    /** Starts a killed node again with its nodes.conf: it rejoins as a replica of whoever took its slots. */
    async restart(port: number): Promise<void> {
      const node = byPort(port);
      await startNode(node, options);
      killed.delete(port);
      const rejoined = async () => (await stateOk(port)) && (await replicating(port));
      await waitForCluster(`node ${port} rejoining as a replica`, rejoined, timeoutMs, port);
    },
    /** Stops every node and removes the temp directories. */
    stop,
  };
}

export type RedisCluster = Awaited<ReturnType<typeof startRedisCluster>>;
