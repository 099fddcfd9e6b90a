import { describe, expect, test } from "bun:test";
import { LookupCache } from "../../shared/conditions/lookupCache";
import { resolveXref } from "../../shared/conditions/xrefs";
import { foldName, normalizeMondoId } from "../../shared/records/conditionTerm";

describe("condition lookup cache", () => {
  test("keeps values and misses (null) apart from unknown keys (undefined)", () => {
    const cache = new LookupCache<string>();
    cache.set("a", "asthma");
    cache.set("b", null);
    expect(cache.get("a")).toBe("asthma");
    expect(cache.get("b")).toBeNull();
    expect(cache.get("c")).toBeUndefined();
  });

  test("an entry older than the TTL is gone; a full cache drops its oldest entry", () => {
    expect(new LookupCache<string>(0).get("a")).toBeUndefined();
    const expired = new LookupCache<string>(0);
    expired.set("a", "asthma");
    expect(expired.get("a")).toBeUndefined();
    const small = new LookupCache<string>(60_000, 2);
    small.set("a", "1");
    small.set("b", "2");
    small.set("c", "3");
    expect([small.get("a"), small.get("b"), small.get("c")]).toEqual([undefined, "2", "3"]);
  });
});

describe("condition names and ids", () => {
  test("names fold case, diacritics and punctuation", () => {
    expect(foldName("Sjögren's  SYNDROME")).toBe("sjogren s syndrome");
    expect(foldName("COVID-19")).toBe(foldName("covid 19"));
  });

  test("MONDO ids in CURIE, underscore and PURL form", () => {
    for (const id of [
      "MONDO:0004979",
      "MONDO_0004979",
      "mondo:0004979",
      "http://purl.obolibrary.org/obo/MONDO_0004979",
    ]) {
      expect(normalizeMondoId(id)).toBe("MONDO:0004979");
    }
    expect(normalizeMondoId("MONDO:123")).toBeUndefined();
    expect(normalizeMondoId("DOID:2841")).toBeUndefined();
  });

  test("cross-references get a resolver URL only for known prefixes", () => {
    expect(resolveXref("OMIM:600807").url).toBe("https://omim.org/entry/600807");
    expect(resolveXref("Orphanet:558").url).toBe("https://www.orpha.net/en/disease/detail/558");
    expect(resolveXref("OMIMPS:203655").url).toBe("https://omim.org/phenotypicSeries/PS203655");
    expect(resolveXref("NIFSTD:birnlex_406")).toEqual({ id: "NIFSTD:birnlex_406", prefix: "NIFSTD", url: null });
  });
});
