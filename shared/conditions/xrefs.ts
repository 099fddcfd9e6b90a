/**
 * Resolvers for the cross-reference prefixes MONDO uses most. A prefix without a well-known
 * resolver gets `url: null` rather than a guessed link. Bioregistry (bioregistry.io) is the
 * community resolver for prefixes whose own sites have no stable per-id URL.
 */
const RESOLVERS: Record<string, (local: string) => string> = {
  OMIM: (id) => `https://omim.org/entry/${id}`,
  OMIMPS: (id) => `https://omim.org/phenotypicSeries/PS${id}`,
  Orphanet: (id) => `https://www.orpha.net/en/disease/detail/${id}`,
  DOID: (id) => `http://purl.obolibrary.org/obo/DOID_${id}`,
  MESH: (id) => `https://meshb.nlm.nih.gov/record/ui?ui=${id}`,
  NCIT: (id) => `http://purl.obolibrary.org/obo/NCIT_${id}`,
  EFO: (id) => `http://www.ebi.ac.uk/efo/EFO_${id}`,
  HP: (id) => `http://purl.obolibrary.org/obo/HP_${id}`,
  UMLS: (id) => `https://uts.nlm.nih.gov/uts/umls/concept/${id}`,
  MEDGEN: (id) => `https://www.ncbi.nlm.nih.gov/medgen/${id}`,
  SCTID: (id) => `http://snomed.info/id/${id}`,
  GARD: (id) => `https://bioregistry.io/gard:${id}`,
  ICD10CM: (id) => `https://bioregistry.io/icd10cm:${id}`,
  ICD10WHO: (id) => `https://icd.who.int/browse10/2019/en#/${id}`,
  ICD9: (id) => `https://bioregistry.io/icd9:${id}`,
  ICDO: (id) => `https://bioregistry.io/icdo:${id}`,
  OGMS: (id) => `http://purl.obolibrary.org/obo/OGMS_${id}`,
};

export interface Xref {
  id: string;
  prefix: string;
  url: string | null;
}

/** `DOID:2841` → `{id, prefix: "DOID", url}`; prefixes are matched case-insensitively. */
export function resolveXref(curie: string): Xref {
  const colon = curie.indexOf(":");
  const prefix = curie.slice(0, colon);
  const local = curie.slice(colon + 1);
  const resolver = Object.entries(RESOLVERS).find(([name]) => name.toLowerCase() === prefix.toLowerCase())?.[1];
  return { id: curie, prefix, url: resolver && local ? resolver(encodeURIComponent(local)) : null };
}

/** Where a MONDO term is described: the Monarch Initiative page and the OBO PURL. */
export function mondoLinks(id: string): { monarch: string; purl: string } {
  return {
    monarch: `https://monarchinitiative.org/${id}`,
    purl: `http://purl.obolibrary.org/obo/${id.replace(":", "_")}`,
  };
}
