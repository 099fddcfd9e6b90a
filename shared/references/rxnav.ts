import { getJson, type UpstreamConfig } from "../core/upstream";
import type { MedicationQuery } from "../jobs/payloads/referenceQueries";
import type { RxnormPart } from "./schemas";

/**
 * RxNav (NLM's RxNorm API, https://lhncbc.nlm.nih.gov/RxNav/APIs/RxNormAPIs.html). A lookup makes
 * at most 6 calls: resolve (exact/normalized name, NDC, or the RxCUI itself), an approximate match
 * when the name has no exact match, then properties, allrelated, allProperties and ndcs.
 */

/** Approximate matches below this RxNav score are not trusted (RxNav scores run 0–100). */
export const APPROXIMATE_MIN_SCORE = 50;
const MAX_PRODUCTS = 50;
const MAX_NDCS = 100;

interface IdGroup {
  idGroup?: { rxnormId?: string[] };
}
interface ApproximateGroup {
  approximateGroup?: { candidate?: { rxcui: string; score: string; rank: string }[] };
}
interface Properties {
  properties?: { rxcui: string; name: string; tty: string };
}
interface ConceptProperties {
  rxcui: string;
  name: string;
  tty: string;
}
interface AllRelated {
  allRelatedGroup?: { conceptGroup?: { tty: string; conceptProperties?: ConceptProperties[] }[] };
}
interface AllProperties {
  propConceptGroup?: { propConcept?: { propCategory: string; propName: string; propValue: string }[] };
}
interface Ndcs {
  ndcGroup?: { ndcList?: { ndc?: string[] } };
}

const INGREDIENT_TTYS = new Set(["IN", "PIN", "MIN"]);
const PRODUCT_TTYS = new Set(["SCD", "SBD", "GPCK", "BPCK"]);

async function resolve(
  rxnav: UpstreamConfig,
  query: MedicationQuery,
): Promise<
  { rxcui: string; matchedBy: RxnormPart["matchedBy"]; approximate: RxnormPart["approximateMatch"] } | undefined
> {
  if (query.by === "rxcui") return { rxcui: query.value, matchedBy: "rxcui", approximate: null };
  if (query.by === "ndc") {
    const found = await getJson<IdGroup>(rxnav, "/rxcui.json", { idtype: "NDC", id: query.value });
    const rxcui = found?.idGroup?.rxnormId?.[0];
    return rxcui ? { rxcui, matchedBy: "ndc", approximate: null } : undefined;
  }
  // search=2: exact match first, then RxNorm's normalized-string match.
  const exact = await getJson<IdGroup>(rxnav, "/rxcui.json", { name: query.value, search: "2" });
  const rxcui = exact?.idGroup?.rxnormId?.[0];
  if (rxcui) return { rxcui, matchedBy: "name", approximate: null };
  const approximate = await getJson<ApproximateGroup>(rxnav, "/approximateTerm.json", {
    term: query.value,
    maxEntries: "1",
    option: "1",
  });
  const best = approximate?.approximateGroup?.candidate?.[0];
  if (!best || Number(best.score) < APPROXIMATE_MIN_SCORE) return undefined;
  return {
    rxcui: best.rxcui,
    matchedBy: "approximate",
    approximate: { inputTerm: query.value, score: Number(best.score) },
  };
}

export function notFoundRxnorm(retrievedAt: string): RxnormPart {
  return {
    found: false,
    matchedBy: null,
    approximateMatch: null,
    rxcui: null,
    name: null,
    tty: null,
    ingredients: [],
    brands: [],
    products: [],
    properties: [],
    ndcs: [],
    ndcCount: 0,
    source: { name: "RxNav (U.S. National Library of Medicine)", url: null, retrievedAt },
  };
}

export async function lookupRxnorm(rxnav: UpstreamConfig, query: MedicationQuery): Promise<RxnormPart> {
  const retrievedAt = new Date().toISOString();
  const resolved = await resolve(rxnav, query);
  if (!resolved) return notFoundRxnorm(retrievedAt);
  const path = `/rxcui/${encodeURIComponent(resolved.rxcui)}`;
  const properties = (await getJson<Properties>(rxnav, `${path}/properties.json`))?.properties;
  if (!properties) return notFoundRxnorm(retrievedAt);
  const [related, allProperties, ndcs] = await Promise.all([
    getJson<AllRelated>(rxnav, `${path}/allrelated.json`),
    getJson<AllProperties>(rxnav, `${path}/allProperties.json`, { prop: "codes attributes" }),
    getJson<Ndcs>(rxnav, `${path}/ndcs.json`),
  ]);
  const concepts = (related?.allRelatedGroup?.conceptGroup ?? []).flatMap((group) => group.conceptProperties ?? []);
  const ndcList = ndcs?.ndcGroup?.ndcList?.ndc ?? [];
  return {
    found: true,
    matchedBy: resolved.matchedBy,
    approximateMatch: resolved.approximate,
    rxcui: properties.rxcui,
    name: properties.name,
    tty: properties.tty,
    ...relatedConcepts(concepts),
    properties: (allProperties?.propConceptGroup?.propConcept ?? []).map((p) => ({
      category: p.propCategory,
      name: p.propName,
      value: p.propValue,
    })),
    ndcs: ndcList.slice(0, MAX_NDCS),
    ndcCount: ndcList.length,
    source: {
      name: "RxNav (U.S. National Library of Medicine)",
      url: `https://mor.nlm.nih.gov/RxNav/search?searchBy=RXCUI&searchTerm=${properties.rxcui}`,
      retrievedAt,
    },
  };
}

/** The related concepts a reference lists, by term type. */
function relatedConcepts(concepts: ConceptProperties[]): Pick<RxnormPart, "ingredients" | "brands" | "products"> {
  const pick = (keep: (tty: string) => boolean) =>
    concepts.filter((c) => keep(c.tty)).map(({ rxcui, name, tty }) => ({ rxcui, name, tty }));
  return {
    ingredients: pick((tty) => INGREDIENT_TTYS.has(tty)),
    brands: pick((tty) => tty === "BN"),
    products: pick((tty) => PRODUCT_TTYS.has(tty)).slice(0, MAX_PRODUCTS),
  };
}
