import { existsSync } from "node:fs";
import { mkdtemp, readdir, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";

// Both tools run with bun: the suite needs Node 22 (fs.globSync) and Node here is 20.
const MODULES = join(import.meta.dir, "../../node_modules/@modelcontextprotocol");
const CONFORMANCE_CLI = join(MODULES, "conformance/dist/index.js");
/** The suite's 2026-07-28 release, installed beside 0.1.16 under an alias (package.json). */
const CONFORMANCE_2026_CLI = join(import.meta.dir, "../../node_modules/mcp-conformance-2026/dist/index.js");
const INSPECTOR_CLI = join(MODULES, "inspector/clients/cli/build/index.js");

export interface KeyProxy {
  /** The proxied MCP endpoint, on a loopback address. */
  url: string;
  stop(): Promise<void>;
}

/**
 * A loopback proxy that adds the API key, for a tool that cannot send headers. `Host` and `Origin`
 * go through unchanged, so the server's DNS-rebinding guard judges what the tool sent.
 */
export function startKeyProxy(target: string, apiKey: string): KeyProxy {
  const targetUrl = new URL(target);
  const server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    async fetch(request) {
      const incoming = new URL(request.url);
      const headers = new Headers(request.headers);
      headers.set("authorization", `Bearer ${apiKey}`);
      const hasBody = request.method !== "GET" && request.method !== "HEAD";
      const answer = await fetch(`${targetUrl.origin}${incoming.pathname}${incoming.search}`, {
        method: request.method,
        headers,
        body: hasBody ? await request.arrayBuffer() : undefined,
        redirect: "manual",
      });
      // fetch has already decoded the body, so these headers would describe the wrong bytes.
      const out = new Headers(answer.headers);
      out.delete("content-encoding");
      out.delete("content-length");
      return new Response(answer.body, { status: answer.status, headers: out });
    },
  });
  return { url: `http://127.0.0.1:${server.port}${targetUrl.pathname}`, stop: () => server.stop(true) };
}

interface Spawned {
  exitCode: number;
  stdout: string;
  stderr: string;
}

async function spawnText(command: string[], env?: Record<string, string | undefined>): Promise<Spawned> {
  const child = Bun.spawn(command, { stdout: "pipe", stderr: "pipe", env });
  const [stdout, stderr, exitCode] = await Promise.all([
    new Response(child.stdout).text(),
    new Response(child.stderr).text(),
    child.exited,
  ]);
  return { exitCode, stdout, stderr };
}

function requireTool(path: string, name: string): void {
  if (!existsSync(path)) throw new Error(`${name} is not installed (no ${path}); run bun install`);
}

/** One check of a conformance scenario, as the suite writes it to checks.json. */
export interface ConformanceCheck {
  id: string;
  description: string;
  status: string;
  errorMessage?: string;
  details?: unknown;
}

export interface ConformanceRun extends Spawned {
  checks: ConformanceCheck[];
}

/** The server scenario names the installed suite offers (`conformance list --server`). */
export async function conformanceScenarios(): Promise<string[]> {
  requireTool(CONFORMANCE_CLI, "@modelcontextprotocol/conformance");
  const run = await spawnText([process.execPath, CONFORMANCE_CLI, "list", "--server"]);
  if (run.exitCode !== 0)
    throw new Error(`conformance list failed (exit ${run.exitCode}):\n${run.stdout}${run.stderr}`);
  return [...run.stdout.matchAll(/^\s+- (\S+)/gm)].map((match) => match[1] ?? "");
}

/** One scenario of a run, with the checks it wrote. */
export interface ScenarioChecks {
  scenario: string;
  checks: ConformanceCheck[];
}

/**
 * Runs `conformance server --url <url> ...selection` with the suite at `cli` and reads the
 * checks.json each scenario writes into a temporary directory (in a folder named
 * server-<scenario>-<timestamp>).
 */
async function runServerSuite(
  cli: string,
  url: string,
  selection: string[],
): Promise<Spawned & { scenarios: ScenarioChecks[] }> {
  requireTool(cli, "@modelcontextprotocol/conformance");
  const dir = await mkdtemp(join(tmpdir(), "mcp-conformance-"));
  try {
    const run = await spawnText([process.execPath, cli, "server", "--url", url, ...selection, "--output-dir", dir]);
    const files = (await readdir(dir, { recursive: true })).filter((entry) => entry.endsWith("checks.json"));
    if (files.length === 0) {
      throw new Error(`conformance wrote no checks.json (exit ${run.exitCode}):\n${run.stdout}${run.stderr}`);
    }
    const scenarios = await Promise.all(
      files.map(async (file) => ({
        scenario: file.replace(/^server-/, "").replace(/-\d{4}-\d{2}-\d{2}T[^/]*\/checks\.json$/, ""),
        checks: JSON.parse(await readFile(join(dir, file), "utf8")) as ConformanceCheck[],
      })),
    );
    return { ...run, scenarios };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** Runs one server scenario of the released suite (0.1.16, the 2025 era). */
export async function runConformance(url: string, scenario: string): Promise<ConformanceRun> {
  const { scenarios, ...run } = await runServerSuite(CONFORMANCE_CLI, url, ["--scenario", scenario]);
  return { ...run, checks: scenarios.flatMap((entry) => entry.checks) };
}

/**
 * Runs exactly the scenarios protocol revision `revision` requires (`server --requirements`), with
 * the 2026 release of the suite.
 */
export function runRequirements(url: string, revision: string): Promise<Spawned & { scenarios: ScenarioChecks[] }> {
  return runServerSuite(CONFORMANCE_2026_CLI, url, ["--requirements", revision]);
}

/** The checks of a run that did not succeed, one readable line each, with what the suite recorded. */
export function unsuccessfulChecks(run: ConformanceRun): string[] {
  return run.checks
    .filter((check) => check.status !== "SUCCESS")
    .map(
      (check) =>
        `${check.id} ${check.status}: ${check.errorMessage ?? check.description} ${JSON.stringify(check.details ?? {})}`,
    );
}

/** What the Inspector CLI printed with `--format json`: the method's result, and `--strict` findings. */
export interface InspectorOutput {
  result: Record<string, unknown>;
  schemaFindings?: { toolName: string; findings: { rule: string; severity: string; path: string; issue: string }[] }[];
}

/**
 * Runs the MCP Inspector's CLI against `url` with the key header and parses its JSON output; throws
 * with the CLI's own words when it exits non-zero or prints no JSON. Its catalog and config live in a
 * temporary home, so a run never reads or writes ~/.mcp-inspector.
 */
export async function runInspector(url: string, apiKey: string, args: string[]): Promise<InspectorOutput> {
  requireTool(INSPECTOR_CLI, "@modelcontextprotocol/inspector");
  const home = await mkdtemp(join(tmpdir(), "mcp-inspector-"));
  try {
    const command = [process.execPath, INSPECTOR_CLI, url, "--transport", "http", "--format", "json"];
    command.push("--header", `Authorization: Bearer ${apiKey}`, ...args);
    const run = await spawnText(command, {
      ...process.env,
      HOME: home,
      MCP_CATALOG_PATH: join(home, "mcp.json"),
      MCP_CLIENT_CONFIG_PATH: join(home, "client.json"),
    });
    const said = `inspector ${args.join(" ")} exited ${run.exitCode}:\n${run.stdout}${run.stderr}`;
    if (run.exitCode !== 0) throw new Error(said);
    try {
      return JSON.parse(run.stdout) as InspectorOutput;
    } catch {
      throw new Error(`no JSON from ${said}`);
    }
  } finally {
    await rm(home, { recursive: true, force: true });
  }
}
