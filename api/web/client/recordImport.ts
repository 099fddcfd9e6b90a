import { ApiError, send } from "./api";
import { uploadFile, uploadProblem } from "./attachments";
import { busy, byId, h, say } from "./dom";
import { keptPhrases, patientText, type RecordImport, summaryView } from "./recordSummary";

/**
 * Importing a health record on the profile page: the file is uploaded like a lab report (presign →
 * PUT → complete → ready), then `POST /api/health/records/import` reads it. A 202 is followed by
 * asking again until the worker answers; a 409 that names another patient than earlier imports
 * asks the person, and "Import anyway" sends the same file with `proceed: true`.
 */

const FOLLOW_PAUSE_MS = 2_000;
const FOLLOW_LIMIT_MS = 180_000;
const RECORD_TYPES = ["application/json", "application/fhir+json", "application/xml", "text/xml"];

export interface RecordPage {
  /** Shows an API failure in `status` (the plan and consent notices when they are the reason). */
  showError(error: unknown, status: HTMLElement, prefix: string): void;
  /** Reloads the list of imports and the profile's sections. */
  refresh(): Promise<void>;
}

interface Job {
  fileId: string;
  name: string;
  proceed: boolean;
}

/** The file typed as a record by its extension when the browser gave no record type; null when it is neither. */
function asRecordFile(file: File): File | null {
  if (RECORD_TYPES.includes(file.type)) return file;
  const extension = /\.(json|xml)$/i.exec(file.name)?.[1]?.toLowerCase();
  if (!extension) return null;
  return new File([file], file.name, { type: extension === "json" ? "application/json" : "application/xml" });
}

/** The 409 that names another patient than earlier imports. */
const isOtherPatient = (error: unknown): error is ApiError =>
  error instanceof ApiError && error.code === "RECORD_OTHER_PATIENT";

export class RecordImporter {
  private readonly status = byId("record-status");
  private readonly confirmRow = byId("record-confirm");
  private readonly summary = byId("record-summary");
  /** The file waiting for the person's answer to "another patient". */
  private waiting: Job | null = null;

  constructor(private readonly page: RecordPage) {
    const form = byId<HTMLFormElement>("record-form");
    form.addEventListener("submit", (event) => {
      event.preventDefault();
      void this.start(form, byId<HTMLInputElement>("record-file"));
    });
    const proceed = byId<HTMLButtonElement>("record-proceed");
    proceed.addEventListener("click", () => {
      const job = this.waiting;
      if (!job) return;
      this.ask(false);
      void busy(form, () => this.run({ ...job, proceed: true }));
    });
    byId("record-cancel").addEventListener("click", () => {
      const job = this.waiting;
      this.ask(false);
      if (job) say(this.status, `${job.name} was not imported.`);
    });
  }

  /** Hides the summary of a removed import. */
  forget(importId: string): void {
    if (this.summary.dataset.importId === importId) this.summary.hidden = true;
  }

  private ask(open: boolean, job: Job | null = null): void {
    this.waiting = open ? job : null;
    this.confirmRow.hidden = !open;
  }

  private async start(form: HTMLFormElement, input: HTMLInputElement): Promise<void> {
    this.ask(false);
    const chosen = input.files?.[0];
    if (!chosen) {
      say(this.status, "Choose a record file first.", "error");
      input.focus();
      return;
    }
    const file = asRecordFile(chosen);
    if (!file) {
      say(
        this.status,
        `${chosen.name} is not a JSON or XML file. Choose a FHIR R4 Bundle or a C-CDA document.`,
        "error",
      );
      return;
    }
    await busy(form, async () => {
      let fileId: string;
      try {
        fileId = await uploadFile(file, (text) => say(this.status, `${file.name}: ${text}`));
      } catch (error) {
        if (error instanceof ApiError) this.page.showError(error, this.status, `${file.name} could not be uploaded: `);
        else say(this.status, `${file.name} could not be uploaded: ${uploadProblem(error)}`, "error");
        return;
      }
      form.reset();
      await this.run({ fileId, name: file.name, proceed: false });
    });
  }

  /** Asks the API to import; after a 202, asks again in the background until it answers. */
  private async run(job: Job): Promise<void> {
    say(this.status, `${job.name}: reading the record…`);
    try {
      if (await this.request(job)) return;
      say(this.status, `Processing: ${job.name} is still being read. Its summary appears here when it is done.`);
      void this.follow(job);
    } catch (error) {
      this.refused(job, error);
    }
  }

  /** One import request; true once it has answered (false: still being read). */
  private async request(job: Job): Promise<boolean> {
    const body = { file_id: job.fileId, ...(job.proceed ? { proceed: true } : {}) };
    const response = await send("/api/health/records/import", { method: "POST", body });
    if (response.status === 202) return false;
    const record = (await response.json()) as RecordImport;
    await this.page.refresh();
    this.show(record);
    const before = response.status === 200 ? " It was imported before." : "";
    say(this.status, `Imported ${record.filename} (${patientText(record)}).${before}`, "success");
    return true;
  }

  private async follow(job: Job): Promise<void> {
    const deadline = Date.now() + FOLLOW_LIMIT_MS;
    try {
      while (Date.now() < deadline) {
        await new Promise((resolve) => setTimeout(resolve, FOLLOW_PAUSE_MS));
        if (await this.request(job)) return;
      }
      say(this.status, `${job.name} is still being read. Reload the page later to see it in your imports.`);
    } catch (error) {
      this.refused(job, error);
    }
  }

  private refused(job: Job, error: unknown): void {
    if (isOtherPatient(error)) {
      // The API's message names both patients; its last sentence is for API callers (`proceed`).
      const [names] = error.message.split(" Nothing was stored");
      say(this.status, `${names} Nothing was stored. Import it anyway?`, "error");
      this.ask(true, job);
      return;
    }
    this.page.showError(error, this.status, `${job.name} could not be imported: `);
  }

  private show(record: RecordImport): void {
    this.summary.replaceChildren(...summaryView(record, "record-summary-heading"));
    this.summary.dataset.importId = record.id;
    this.summary.hidden = false;
  }
}

/** One import in the list: its file, patient and counts, and an Undo button. */
export function importItem(record: RecordImport, undo: (button: HTMLButtonElement) => void): HTMLLIElement {
  const button = h(
    "button",
    { type: "button", class: "secondary small" },
    "Undo",
    h("span", { class: "visually-hidden" }, ` the import of ${record.filename}`),
  );
  button.addEventListener("click", () => undo(button));
  const when = new Date(record.createdAt).toLocaleString(undefined, { dateStyle: "medium", timeStyle: "short" });
  return h(
    "li",
    { class: "record-import", "data-import-id": record.id },
    h("div", { class: "record-import-head" }, h("strong", {}, record.filename), button),
    h("p", { class: "hint" }, `${patientText(record)} · imported ${when}`),
    h("p", {}, `Kept: ${keptPhrases(record).join(", ")}.`),
  );
}
