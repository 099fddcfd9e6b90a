import { getJson, type UpstreamConfig } from "../core/upstream";
import type { LabelQuery } from "../jobs/payloads/referenceQueries";
import { type FdaPart, LABEL_SECTIONS } from "./schemas";

/**
 * openFDA drug labels (https://open.fda.gov/apis/drug/label/). At most 3 searches, newest label
 * first: by the harmonized `openfda.rxcui`, then by `openfda` generic/brand name (quoted phrases),
 * then — because some labels lack the harmonized `openfda` block (FDA/openfda #213, #214, #235) —
 * by product text among labels where that block is missing.
 */

export interface OpenFdaConfig extends UpstreamConfig {
  apiKey?: string;
}

interface Label {
  id?: string;
  set_id?: string;
  effective_time?: string;
  openfda?: Record<string, string[] | undefined>;
  [section: string]: unknown;
}

interface LabelSearch {
  meta?: { last_updated?: string };
  results?: Label[];
}

/** A phrase inside openFDA's query syntax: quotes and backslashes would end it early. */
function phrase(text: string): string {
  return `"${text.replace(/["\\]/g, " ").trim()}"`;
}

function searches(query: LabelQuery): { matchedBy: FdaPart["matchedBy"]; search: string }[] {
  const plans: { matchedBy: FdaPart["matchedBy"]; search: string }[] = [];
  if (query.rxcuis.length > 0) {
    plans.push({ matchedBy: "rxcui", search: query.rxcuis.map((id) => `openfda.rxcui:${phrase(id)}`).join(" ") });
  }
  if (query.names.length > 0) {
    const names = query.names.flatMap((name) => [
      `openfda.generic_name:${phrase(name)}`,
      `openfda.brand_name:${phrase(name)}`,
    ]);
    plans.push({ matchedBy: "name", search: names.join(" ") });
    const text = query.names.map((name) => `spl_product_data_elements:${phrase(name)}`).join(" ");
    plans.push({ matchedBy: "label-text", search: `_missing_:openfda AND (${text})` });
  }
  return plans;
}

export function notFoundLabel(retrievedAt: string): FdaPart {
  return {
    found: false,
    matchedBy: null,
    setId: null,
    labelId: null,
    effectiveTime: null,
    harmonized: false,
    brandNames: [],
    genericNames: [],
    manufacturers: [],
    routes: [],
    rxcuis: [],
    sections: {},
    source: { name: "openFDA drug labels (U.S. Food and Drug Administration)", url: null, retrievedAt },
  };
}

export async function lookupLabel(openfda: OpenFdaConfig, query: LabelQuery): Promise<FdaPart> {
  const retrievedAt = new Date().toISOString();
  for (const plan of searches(query)) {
    const params: Record<string, string> = { search: plan.search, limit: "1", sort: "effective_time:desc" };
    if (openfda.apiKey) params.api_key = openfda.apiKey;
    const found = await getJson<LabelSearch>(openfda, "/drug/label.json", params);
    const label = found?.results?.[0];
    if (label) return toFdaPart(label, plan.matchedBy, retrievedAt, found?.meta?.last_updated);
  }
  return notFoundLabel(retrievedAt);
}

/** The stable shape of one openFDA label (also used to seed the demo cache from recorded responses). */
export function toFdaPart(
  label: Label,
  matchedBy: FdaPart["matchedBy"],
  retrievedAt: string,
  lastUpdated?: string,
): FdaPart {
  const harmonized = label.openfda !== undefined && Object.keys(label.openfda).length > 0;
  const field = (name: string) => label.openfda?.[name] ?? [];
  const sections: Record<string, string> = {};
  for (const key of LABEL_SECTIONS) {
    const value = label[key];
    if (Array.isArray(value) && value.length > 0) sections[key] = value.map(String).join("\n\n");
  }
  const effective = /^(\d{4})(\d{2})(\d{2})$/.exec(label.effective_time ?? "");
  return {
    found: true,
    matchedBy,
    setId: label.set_id ?? null,
    labelId: label.id ?? null,
    effectiveTime: effective ? `${effective[1]}-${effective[2]}-${effective[3]}` : null,
    harmonized,
    brandNames: field("brand_name"),
    genericNames: field("generic_name"),
    manufacturers: field("manufacturer_name"),
    routes: field("route"),
    rxcuis: field("rxcui"),
    sections,
    source: {
      name: "openFDA drug labels (U.S. Food and Drug Administration)",
      url: label.set_id ? `https://dailymed.nlm.nih.gov/dailymed/lookup.cfm?setid=${label.set_id}` : null,
      retrievedAt,
      ...(lastUpdated ? { note: `openFDA data last updated ${lastUpdated}` } : {}),
    },
  };
}
