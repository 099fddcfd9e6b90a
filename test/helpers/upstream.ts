import { join } from "node:path";
import type { Deps } from "../../shared/context/deps";
import type { Env } from "../../shared/core/env";

/**
 * A local HTTP server standing in for RxNav and openFDA: it replays recorded real responses (in
 * test/fixtures/upstream/recorded, see its PROVENANCE.md) and the constructed ones in
 * test/fixtures/upstream, counts hits per endpoint, and can be switched to fail (HTTP 503) or to
 * stall (hold requests until the mode changes).
 */
const RECORDED = join(import.meta.dir, "../fixtures/upstream/recorded");
const CONSTRUCTED = join(import.meta.dir, "../fixtures/upstream");

export type UpstreamMode = "normal" | "fail" | "stall";

export interface UpstreamFixtures {
  rxnavUrl: string;
  openFdaUrl: string;
  mode: UpstreamMode;
  /** Requests per endpoint, e.g. `rxnav /REST/rxcui.json` or `openfda /drug/label.json`. */
  hits: Map<string, number>;
  totalHits(prefix: string): number;
  stop(): Promise<void>;
}

const json = (file: string) => Bun.file(file).text();
const recorded = (path: string) => json(join(RECORDED, path));
const constructed = (path: string) => json(join(CONSTRUCTED, path));

async function labelWithoutOpenfda(): Promise<string> {
  const response = JSON.parse(await recorded("openfda/FDA-openfda_deploy-tests_druglabel_search.0.response.json"));
  for (const label of response.results) delete label.openfda;
  return JSON.stringify(response);
}

/** The body for one RxNav request, or undefined for 404. */
async function rxnav(url: URL): Promise<string | undefined> {
  const path = url.pathname.replace(/^\/REST/, "");
  const params = url.searchParams;
  if (path === "/rxcui.json" && params.get("idtype") === "NDC") {
    return params.get("id") === "0781-1506-10"
      ? recorded("rxnav/pillfill-rxnorm-client_rxnorm-idgroup-response.json")
      : constructed("rxnav/rxcui-name-no-match.json");
  }
  if (path === "/rxcui.json") {
    const name = (params.get("name") ?? "").toLowerCase();
    const known: Record<string, string> = {
      aspirin: "aspirin",
      "zyrtec itchy eye": "zyrtec-itchy-eye",
      adalimumab: "adalimumab",
    };
    return constructed(
      `rxnav/${Object.hasOwn(known, name) ? `rxcui-name-${known[name]}` : "rxcui-name-no-match"}.json`,
    );
  }
  if (path === "/approximateTerm.json") {
    return constructed(`rxnav/${params.get("term") === "ambienn" ? "approximate-ambienn" : "approximate-none"}.json`);
  }
  const concept = /^\/rxcui\/(\d+)\/(properties|allrelated|allProperties|ndcs)\.json$/.exec(path);
  if (!concept) return undefined;
  const [, rxcui, what] = concept;
  if (rxcui === "866350" && what === "allrelated") {
    return recorded("rxnav/pillfill-rxnorm-client_rxnorm-related-response.json");
  }
  if (rxcui === "866350" && what === "allProperties") {
    return recorded("rxnav/pillfill-rxnorm-client_rxnorm-propconcept-response.json");
  }
  const file = Bun.file(join(CONSTRUCTED, `rxnav/${what?.toLowerCase()}-${rxcui}.json`));
  if (await file.exists()) return file.text();
  return constructed(what === "ndcs" ? "rxnav/ndcs-empty.json" : "rxnav/empty.json");
}

/** The body for one openFDA label search, or undefined for openFDA's 404 "No matches found!". */
async function openfda(url: URL): Promise<string | undefined> {
  if (url.pathname !== "/drug/label.json") return undefined;
  const search = url.searchParams.get("search") ?? "";
  if (search.includes('openfda.rxcui:"308416"')) return recorded("openfda/TFlowGit-tf-ads-bpa_aspirin.json");
  if (search.includes('openfda.rxcui:"854875"')) return recorded("openfda/TFlowGit-tf-ads-bpa_ambien.json");
  if (search.startsWith("_missing_:openfda") && search.includes('"adalimumab"')) return labelWithoutOpenfda();
  return undefined;
}

export function startUpstreamFixtures(): UpstreamFixtures {
  const hits = new Map<string, number>();
  const state = { mode: "normal" as UpstreamMode };
  const stalled = new Set<() => void>();
  const server = Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    // Stalled requests are held on purpose, longer than Bun's 10 s default.
    idleTimeout: 0,
    async fetch(request) {
      const url = new URL(request.url);
      const upstream = url.pathname.startsWith("/REST") ? "rxnav" : "openfda";
      const endpoint = `${upstream} ${url.pathname.replace(/\/rxcui\/\d+\//, "/rxcui/{id}/")}`;
      hits.set(endpoint, (hits.get(endpoint) ?? 0) + 1);
      // A stalled request waits until the mode changes, then is answered in the new mode.
      if (state.mode === "stall") await new Promise<void>((resolve) => stalled.add(resolve));
      if (state.mode === "fail") return new Response("upstream down", { status: 503 });
      // Replayed responses come back after a short think time, as a real upstream's would.
      await Bun.sleep(20);
      const body = upstream === "rxnav" ? await rxnav(url) : await openfda(url);
      if (body === undefined) {
        const notFound = upstream === "openfda" ? await constructed("openfda/not-found.json") : "{}";
        return new Response(notFound, { status: 404, headers: { "content-type": "application/json" } });
      }
      return new Response(body, { headers: { "content-type": "application/json" } });
    },
  });
  const base = `http://127.0.0.1:${server.port}`;
  return {
    rxnavUrl: `${base}/REST`,
    openFdaUrl: base,
    get mode() {
      return state.mode;
    },
    set mode(mode: UpstreamMode) {
      state.mode = mode;
      if (mode !== "stall") for (const release of stalled.values()) release();
      if (mode !== "stall") stalled.clear();
    },
    hits,
    totalHits: (prefix) => [...hits].filter(([key]) => key.startsWith(prefix)).reduce((sum, [, n]) => sum + n, 0),
    async stop() {
      for (const release of stalled) release();
      await server.stop(true);
    },
  };
}

/** Deps whose reference clients talk to the fixture server instead of RxNav and openFDA. */
/** The reference upstream settings that point the service at these fixtures. */
export function upstreamEnv(upstream: UpstreamFixtures) {
  return { RXNAV_BASE_URL: upstream.rxnavUrl, OPENFDA_BASE_URL: upstream.openFdaUrl };
}

export function withUpstream(base: Deps, upstream: UpstreamFixtures, env: Partial<Env> = {}): Deps {
  return { ...base, env: { ...base.env, ...upstreamEnv(upstream), ...env } };
}
