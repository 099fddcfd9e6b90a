/**
 * arXiv identifiers: new style `YYMM.NNNN` / `YYMM.NNNNN` (2007 on) and old style `archive/YYMMNNN`
 * or `archive.SUBJ/YYMMNNN`, each optionally with a version suffix `vN`.
 */
const ARXIV_ID = /^(?:\d{4}\.\d{4,5}|[a-z]+(?:-[a-z]+)*(?:\.[A-Z]{2})?\/\d{7})(?:v\d+)?$/;

export function isArxivId(value: string): boolean {
  return ARXIV_ID.test(value);
}
