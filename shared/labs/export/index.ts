import type { Ctx } from "../../context/ctx";
import { fromPostgres as db } from "../../core/unavailable";
import { requireLabConsentToRead } from "../panels";
import { listPanelsByAccount, type PanelKey } from "../repository";
import type { LabPanel } from "../schemas";
import { panelsToCsv } from "./csv";
import { panelsToFhirBundle } from "./fhir";

export type LabExportFormat = "csv" | "fhir";

export interface LabExportFile {
  filename: string;
  contentType: string;
  body: string;
}

/** Panels per query while reading them all: bounds one query's rows, not the export. */
const BATCH = 100;

/** Every panel of the account, oldest collectedAt first (the list's keyset order, reversed). */
export async function allPanels(ctx: Pick<Ctx, "sql" | "accountId">): Promise<LabPanel[]> {
  const panels: LabPanel[] = [];
  let after: PanelKey | null = null;
  for (;;) {
    const page: LabPanel[] = await db(listPanelsByAccount(ctx.sql, ctx.accountId, { after, limit: BATCH }));
    panels.push(...page);
    const last = page.at(-1);
    if (page.length < BATCH || !last) break;
    after = { collectedAt: last.collectedAt, id: last.id };
  }
  return panels.reverse();
}

/**
 * Every lab result of the caller, for a spreadsheet (`csv`) or a clinical system (`fhir`, an R4
 * Bundle). Needs consent; no panels make a header-only CSV or an empty Bundle.
 */
export async function exportLabPanels(
  ctx: Pick<Ctx, "sql" | "accountId">,
  input: { format: LabExportFormat },
): Promise<LabExportFile> {
  await requireLabConsentToRead(ctx.sql, ctx.accountId);
  const panels = await allPanels(ctx);
  const exportedAt = new Date();
  const stem = `lab-results-${exportedAt.toISOString().slice(0, 10)}`;
  if (input.format === "csv") {
    return { filename: `${stem}.csv`, contentType: "text/csv; charset=utf-8", body: panelsToCsv(panels) };
  }
  return {
    filename: `${stem}.fhir.json`,
    contentType: "application/fhir+json; fhirVersion=4.0; charset=utf-8",
    body: JSON.stringify(panelsToFhirBundle(panels, exportedAt)),
  };
}
