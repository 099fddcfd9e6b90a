import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { parseEnv } from "../../shared/core/env";
import { type AddressKind, addressAllowed, addressKind } from "../../shared/core/ipAddresses";
import { checkedAddresses, guardedFetch, type OutboundPolicy } from "../../shared/core/outboundFetch";
import { type ClientMetadataServer, startClientMetadataServer } from "../helpers/clientMetadataServer";

/**
 * The outbound guard the authorization server fetches client metadata documents through: the
 * address classifier, the resolve-and-check step, and the fetch itself against a local https server
 * (connecting to the checked address while verifying the certificate for the host name).
 */
describe("address classifier", () => {
  const cases: [string, AddressKind][] = [
    ["8.8.8.8", "public"],
    ["1.1.1.1", "public"],
    ["0.0.0.0", "unspecified"],
    ["10.1.2.3", "private"],
    ["100.64.0.1", "private"],
    ["127.0.0.1", "loopback"],
    ["127.255.255.254", "loopback"],
    ["169.254.169.254", "link-local"],
    ["172.16.0.1", "private"],
    ["172.31.255.255", "private"],
    ["172.32.0.1", "public"],
    ["192.168.1.1", "private"],
    ["192.0.2.10", "reserved"],
    ["198.18.0.1", "reserved"],
    ["224.0.0.1", "multicast"],
    ["239.255.255.250", "multicast"],
    ["255.255.255.255", "reserved"],
    ["2606:4700:4700::1111", "public"],
    ["2001:4860:4860::8888", "public"],
    ["::", "unspecified"],
    ["::1", "loopback"],
    ["[::1]", "loopback"],
    ["fe80::1", "link-local"],
    ["fe80::1%eth0", "link-local"],
    ["febf::1", "link-local"],
    ["fec0::1", "private"],
    ["fc00::1", "unique-local"],
    ["fd12:3456::1", "unique-local"],
    ["ff02::1", "multicast"],
    ["::ffff:127.0.0.1", "loopback"],
    ["::ffff:7f00:1", "loopback"],
    ["::ffff:10.0.0.1", "private"],
    ["::ffff:169.254.169.254", "link-local"],
    ["::ffff:8.8.8.8", "public"],
    ["0:0:0:0:0:ffff:192.168.0.1", "private"],
    ["64:ff9b::10.0.0.1", "private"],
    ["64:ff9b::8.8.8.8", "public"],
    ["::127.0.0.1", "reserved"],
    ["100::1", "reserved"],
    ["2001::1", "reserved"],
    ["2001:db8::1", "reserved"],
    ["2002:c0a8:0101::1", "reserved"],
    ["3fff::1", "reserved"],
    ["4000::1", "reserved"],
  ];
  for (const [address, kind] of cases) {
    test(`${address} is ${kind}`, () => expect(addressKind(address)).toBe(kind));
  }

  test("loopback is allowed only with the allowance; nothing else private ever is", () => {
    expect(addressAllowed("127.0.0.1", { allowLoopback: false })).toBe(false);
    expect(addressAllowed("::1", { allowLoopback: true })).toBe(true);
    expect(addressAllowed("::ffff:127.0.0.1", { allowLoopback: true })).toBe(true);
    expect(addressAllowed("10.0.0.1", { allowLoopback: true })).toBe(false);
    expect(addressAllowed("8.8.8.8", { allowLoopback: false })).toBe(true);
  });

  test("a host name is not an address", () => {
    expect(() => addressKind("example.com")).toThrow(TypeError);
  });
});

describe("resolve and check", () => {
  const policy = (answers: string[], allowLoopback = false): OutboundPolicy => ({
    timeoutMs: 1000,
    maxBytes: 1024,
    allowLoopback,
    resolve: async () => answers,
  });
  const check = (url: string, answers: string[], allowLoopback = false) =>
    checkedAddresses(new URL(url), policy(answers, allowLoopback));

  test("only https", async () => {
    await expect(check("http://example.com/c.json", ["8.8.8.8"])).rejects.toThrow(/only https/);
    await expect(check("ftp://example.com/c.json", ["8.8.8.8"])).rejects.toThrow(/only https/);
  });

  test("every address a name resolves to must be public", async () => {
    expect(await check("https://example.com/c.json", ["8.8.8.8", "2001:4860:4860::8888"])).toHaveLength(2);
    await expect(check("https://example.com/c.json", ["8.8.8.8", "10.0.0.1"])).rejects.toThrow(
      /10\.0\.0\.1, a private/,
    );
    await expect(check("https://example.com/c.json", ["::ffff:127.0.0.1"])).rejects.toThrow(/loopback/);
    await expect(check("https://example.com/c.json", ["fd00::5"])).rejects.toThrow(/unique-local/);
    await expect(check("https://example.com/c.json", [])).rejects.toThrow(/does not resolve/);
  });

  test("IP literals are checked without resolving, in any spelling the URL parser accepts", async () => {
    const never: OutboundPolicy = { ...policy([]), resolve: () => Promise.reject(new Error("resolved")) };
    for (const url of ["https://0x7f.1/c.json", "https://2130706433/c.json", "https://[::ffff:7f00:1]/c.json"]) {
      await expect(checkedAddresses(new URL(url), never)).rejects.toThrow(/loopback/);
    }
    expect(await check("https://127.0.0.1/c.json", [], true)).toEqual(["127.0.0.1"]);
  });

  test("the loopback allowance cannot be switched on in production", () => {
    expect(() => parseEnv({ NODE_ENV: "production", OAUTH_FETCH_ALLOW_LOOPBACK: "true" })).toThrow(
      /OAUTH_FETCH_ALLOW_LOOPBACK/,
    );
    expect(parseEnv({ NODE_ENV: "test", OAUTH_FETCH_ALLOW_LOOPBACK: "true" }).OAUTH_FETCH_ALLOW_LOOPBACK).toBe(true);
    expect(parseEnv({}).OAUTH_FETCH_ALLOW_LOOPBACK).toBe(false);
  });
});

describe("guarded fetch", () => {
  let docs: ClientMetadataServer;
  let extraCa: string;
  beforeAll(async () => {
    docs = await startClientMetadataServer();
    extraCa = readFileSync(docs.caFile, "utf8");
  });
  afterAll(() => docs?.stop());

  const fetcher = (overrides: Partial<OutboundPolicy> = {}) =>
    guardedFetch({ timeoutMs: 1000, maxBytes: 1024, allowLoopback: true, extraCa, ...overrides });

  test("connects to the checked address, keeping the name for Host and the certificate", async () => {
    const hosts: (string | null)[] = [];
    docs.serve("/host.json", (request) => {
      hosts.push(request.headers.get("host"));
      return Response.json({ ok: true });
    });
    const url = docs.url("/host.json").replace("127.0.0.1", "localhost");
    // The resolver's answer is where the request goes, whatever the name would resolve to later.
    const response = await fetcher({ resolve: async () => ["127.0.0.1"] })(url);
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ ok: true });
    expect(hosts).toEqual([new URL(url).host]);
  });

  test("the certificate must be valid for the name, not just the address", async () => {
    docs.serve("/name.json", () => Response.json({ ok: true }));
    const url = docs.url("/name.json").replace("127.0.0.1", "client.example");
    await expect(fetcher({ resolve: async () => ["127.0.0.1"] })(url)).rejects.toThrow(/unreachable/);
  });

  test("without the extra CA the self-signed certificate is refused (verification stays on)", async () => {
    docs.serve("/ca.json", () => Response.json({ ok: true }));
    await expect(fetcher({ extraCa: undefined })(docs.url("/ca.json"))).rejects.toThrow(/unreachable/);
  });

  test("a body over the cap is refused; redirects are not followed", async () => {
    docs.serve("/large.json", () => new Response("x".repeat(2048)));
    await expect(fetcher()(docs.url("/large.json"))).rejects.toThrow(/larger than 1024 bytes/);
    docs.serve("/moved.json", () => Response.redirect("https://10.0.0.1/c.json", 302));
    const moved = await fetcher()(docs.url("/moved.json"));
    expect(moved.status).toBe(302);
  });

  test("a body that does not arrive within the time limit is refused", async () => {
    docs.serve("/trickle.json", () => {
      const stream = new ReadableStream({
        async start(controller) {
          controller.enqueue(new TextEncoder().encode("{"));
          await Bun.sleep(1000);
          controller.close();
        },
      });
      return new Response(stream);
    });
    await expect(fetcher({ timeoutMs: 200 })(docs.url("/trickle.json"))).rejects.toThrow(/within 200 ms/);
  });
});
