import { normalizeMondoId, type ParsedTerm, SYNONYM_SCOPES, type Synonym } from "../../records/conditionTerm";

/** The parts of an OBO Graphs JSON document (`mondo.json`) the loader reads. */
interface GraphNode {
  id?: string;
  lbl?: string;
  type?: string;
  meta?: {
    definition?: { val?: string };
    synonyms?: { pred?: string; val?: string }[];
    xrefs?: { val?: string }[];
    deprecated?: boolean;
  };
}
interface Graph {
  nodes?: GraphNode[];
  edges?: { sub?: string; pred?: string; obj?: string }[];
}

const SCOPE_OF_PREDICATE: Record<string, Synonym["scope"]> = {
  hasExactSynonym: "EXACT",
  hasRelatedSynonym: "RELATED",
  hasBroadSynonym: "BROAD",
  hasNarrowSynonym: "NARROW",
};

/**
 * MONDO's OBO Graphs JSON release: class nodes (`type: "CLASS"`) with `lbl` and `meta`, and `is_a`
 * edges. Node ids are PURLs (`http://purl.obolibrary.org/obo/MONDO_0004979`); non-MONDO nodes
 * (other ontologies' classes used in axioms) and properties are skipped.
 */
export function parseOboGraphs(document: unknown): ParsedTerm[] {
  const graphs = (document as { graphs?: Graph[] })?.graphs;
  if (!Array.isArray(graphs)) throw new Error("not an OBO Graphs document: no `graphs` array");
  const terms = new Map<string, ParsedTerm>();
  for (const graph of graphs) {
    for (const node of graph.nodes ?? []) {
      const id = node.id ? normalizeMondoId(node.id) : undefined;
      if (!id || (node.type && node.type !== "CLASS") || !node.lbl?.trim()) continue;
      const meta = node.meta ?? {};
      terms.set(id, {
        id,
        label: node.lbl.trim(),
        definition: meta.definition?.val?.trim() || null,
        synonyms: (meta.synonyms ?? []).flatMap((s) =>
          s.val?.trim() ? [{ text: s.val.trim(), scope: scopeOf(s.pred) }] : [],
        ),
        xrefs: (meta.xrefs ?? []).flatMap((x) => (x.val?.includes(":") ? [x.val.trim()] : [])),
        parents: [],
        obsolete: meta.deprecated === true,
      });
    }
  }
  for (const graph of graphs) {
    for (const edge of graph.edges ?? []) {
      if (edge.pred !== "is_a" || !edge.sub || !edge.obj) continue;
      const child = terms.get(normalizeMondoId(edge.sub) ?? "");
      const parent = normalizeMondoId(edge.obj);
      if (child && parent && !child.parents.includes(parent)) child.parents.push(parent);
    }
  }
  return [...terms.values()];
}

function scopeOf(predicate: string | undefined): Synonym["scope"] {
  const name = predicate?.split(/[#/]/).pop() ?? "";
  return SCOPE_OF_PREDICATE[name] ?? SYNONYM_SCOPES.find((s) => s === name.toUpperCase()) ?? null;
}
