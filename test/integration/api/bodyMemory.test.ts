import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { Deps } from "../../../shared/context/deps";
import { type Service, spawnService } from "../../helpers/faults";
import { processEnvFor, testDeps } from "../../helpers/infra";

/**
 * Bodies are not read before the caller is known: a client that streams 25 MiB chunked to an
 * endpoint it has no key for gets its 401 and costs the API process no memory, measured from the
 * process itself (its resident set in /proc), as an attacker's six parallel uploads would.
 */
let deps: Deps;
let api: Service;

beforeAll(async () => {
  deps = await testDeps();
  api = await spawnService("api", { ...processEnvFor(deps.env), LOG_LEVEL: "silent" });
}, 60_000);

afterAll(async () => {
  api?.child.kill();
  await api?.child.exited;
});

async function residentMiB(pid: number): Promise<number> {
  const status = await Bun.file(`/proc/${pid}/status`).text();
  return Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? Number.NaN) / 1024;
}

const TOTAL = 25 * 1024 * 1024;
const CHUNK = 64 * 1024;

/**
 * A raw HTTP/1.1 client that writes the whole chunked body whatever the server answers (as a hostile
 * client would; fetch stops sending at the response), until the server closes the connection.
 * Resolves with the status line it got and how many body bytes the socket accepted.
 */
function streamChunked(url: string, path: string, headers: Record<string, string>) {
  const { hostname, port } = new URL(url);
  return new Promise<{ status: string; written: number }>((resolve, reject) => {
    let answer = "";
    let written = 0;
    let closed = false;
    const chunk = Buffer.concat([
      Buffer.from(`${CHUNK.toString(16)}\r\n`),
      Buffer.alloc(CHUNK, 0x20),
      Buffer.from("\r\n"),
    ]);
    const pump = (socket: { write(data: Buffer): number; end(): void }) => {
      while (!closed && written < TOTAL) {
        const sent = socket.write(chunk);
        if (sent < chunk.length) return; // wait for drain
        written += CHUNK;
      }
      if (!closed && written >= TOTAL) socket.write(Buffer.from("0\r\n\r\n"));
    };
    const done = () => resolve({ status: answer.split("\r\n")[0] ?? "", written });
    Bun.connect({
      hostname,
      port: Number(port),
      socket: {
        open(socket) {
          const head = Object.entries({ host: `${hostname}:${port}`, "transfer-encoding": "chunked", ...headers })
            .map(([name, value]) => `${name}: ${value}\r\n`)
            .join("");
          socket.write(`POST ${path} HTTP/1.1\r\n${head}\r\n`);
          pump(socket);
        },
        drain: pump,
        data(socket, data) {
          answer += data.toString();
          if (written >= TOTAL) socket.end();
        },
        close() {
          closed = true;
          done();
        },
        error(_socket, error) {
          closed = true;
          if (answer) done();
          else reject(error);
        },
      },
    }).catch(reject);
  });
}

describe("bodies are limited before they are read", () => {
  test("six 25 MiB chunked uploads without a key: 401 each, and the API's memory grows by a few MiB at most", async () => {
    const pid = api.child.pid;
    // Warm the process (first requests load code) before the baseline.
    for (let i = 0; i < 3; i++) await fetch(`${api.url}/api/v1/transcribe`, { method: "POST", body: "x" });
    Bun.gc(true);
    const before = await residentMiB(pid);
    const paths = ["/api/v1/transcribe", "/api/transcribe", "/api/v1/transcribe", "/api/v1/health/trackers"];
    const results = await Promise.all(
      [...paths, ...paths.slice(0, 2)].map((path) =>
        streamChunked(api.url, path, { "content-type": "multipart/form-data; boundary=b" }),
      ),
    );
    const after = await residentMiB(pid);
    expect(after - before).toBeLessThan(8);
    for (const result of results) expect(result.status).toMatch(/^HTTP\/1\.1 401/);
    // The connection was closed long before the client could write its 25 MiB.
    for (const result of results) expect(result.written).toBeLessThan(TOTAL / 2);
  }, 60_000);
});
