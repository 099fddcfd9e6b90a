import { api } from "./api";
import { busy, byId, say } from "./dom";
import { importItem, RecordImporter, type RecordPage } from "./recordImport";
import { NO_RECORD_SECTIONS, type RecordSections, showRecordSections } from "./recordSections";
import { keptPhrases, plural, type RecordImport } from "./recordSummary";

/**
 * The profile page's imported health records: the import form (recordImport.ts), the list of
 * imports with Undo, and the sections the records fill (recordSections.ts).
 */

interface ImportList {
  consentGiven: boolean;
  imports: RecordImport[];
}

interface Undone {
  deleted: true;
  itemsDeleted: number;
  labPanelsDeleted: number;
}

let page: RecordPage;
let importer: RecordImporter;

async function loadImports(): Promise<void> {
  const list = await api<ImportList>("/api/health/records/imports");
  byId("imports").replaceChildren(
    ...list.imports.map((record) => importItem(record, (button) => void undo(record, button))),
  );
  const empty = byId("imports-empty");
  empty.hidden = list.imports.length > 0;
  empty.textContent = list.consentGiven
    ? "No records imported yet."
    : "No records imported. Give consent above before importing one.";
}

async function loadSections(): Promise<void> {
  showSections(await api<RecordSections>("/api/health/profile"));
}

async function undo(record: RecordImport, button: HTMLButtonElement): Promise<void> {
  const question = `Undo the import of ${record.filename}? Everything read from it is removed: ${keptPhrases(record).join(", ")}.`;
  if (!confirm(question)) return;
  const status = byId("imports-status");
  await busy(button, async () => {
    try {
      const undone = await api<Undone>(`/api/health/records/imports/${encodeURIComponent(record.id)}`, {
        method: "DELETE",
      });
      importer.forget(record.id);
      await page.refresh();
      const removed = `${plural(undone.itemsDeleted, "item")} and ${plural(undone.labPanelsDeleted, "lab panel")}`;
      say(status, `Undone: ${record.filename}; ${removed} removed.`, "success");
      // The button is gone with its import: keep the keyboard in the list.
      byId("imports-heading").focus();
    } catch (error) {
      page.showError(error, status, `${record.filename} could not be undone: `);
    }
  });
}

/** Shows the sections from an answer of the profile API (which carries them; none: empty). */
export function showSections(profile: Partial<RecordSections>): void {
  const { allergies, importedConditions, importedMedications, immunizations } = { ...NO_RECORD_SECTIONS, ...profile };
  showRecordSections({ allergies, importedConditions, importedMedications, immunizations });
}

/**
 * Wires the import form; `showError` is the page's way of showing an API failure. `list` loads the
 * imports; `refresh` reloads them and the sections (after an import, an undo, or a change of
 * consent). Both show a failure under the list.
 */
export function initRecords(showError: RecordPage["showError"]): Record<"list" | "refresh", () => Promise<void>> {
  page = {
    showError,
    refresh: async () => {
      await Promise.all([loadImports(), loadSections()]);
    },
  };
  importer = new RecordImporter(page);
  const reported = (work: () => Promise<void>) => () =>
    work().catch((error) => showError(error, byId("imports-status"), ""));
  return { list: reported(loadImports), refresh: reported(page.refresh) };
}
