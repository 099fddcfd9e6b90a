import { ApiError, type Session, send } from "./api";
import { uploadFile, uploadProblem } from "./attachments";
import { busy, byId, say } from "./dom";
import { counted, isFlagged, type LabPanel } from "./labData";
import { showApiError, showPlanNotice } from "./profile";

/**
 * Importing a lab report on the Labs page: the PDF is uploaded like a chat attachment (presign →
 * PUT → complete → ready), then the API reads it. A 202 means a worker is still reading it: the
 * page asks again (each answer waits a few seconds for the worker) until it answers the panels or
 * the reason nothing could be read, and refreshes the list when they are there.
 */

const FOLLOW_PAUSE_MS = 2_000;
const FOLLOW_LIMIT_MS = 180_000;

function doneText(created: LabPanel[], name: string, before: boolean): string {
  const results = created.reduce((sum, panel) => sum + panel.results.length, 0);
  const flagged = created.reduce((sum, panel) => sum + panel.results.filter(isFlagged).length, 0);
  const count = counted(created.length, "panel");
  const what = `${count} with ${counted(results, "result")} (${flagged} flagged)`;
  return before ? `${name} was imported before: ${what}, listed below.` : `Imported ${what} from ${name}.`;
}

interface Import {
  fileId: string;
  name: string;
  status: HTMLElement;
  session: Session;
  refresh: () => Promise<void>;
}

/**
 * One import request; true once it has answered the panels (false: still being read). A 200 is a
 * file whose panels exist: imported before when asked first, else by the job this page followed.
 */
async function ask(job: Import, first: boolean): Promise<boolean> {
  const response = await send("/api/health/labs/import", { method: "POST", body: { file_id: job.fileId } });
  if (response.status === 202) return false;
  const { panels } = (await response.json()) as { panels: LabPanel[] };
  await job.refresh();
  say(job.status, doneText(panels, job.name, first && response.status === 200), "success");
  return true;
}

function refused(job: Import, error: unknown): void {
  // The API's reason already says that nothing could be read; the file's name says which file.
  const prefix =
    error instanceof ApiError && error.code === "NO_LAB_RESULTS"
      ? `${job.name}: `
      : `${job.name} could not be imported: `;
  showApiError(job.session, error, job.status, prefix);
}

/** After a 202: asks again until the report is read or refused, or the page has waited long enough. */
async function follow(job: Import): Promise<void> {
  const deadline = Date.now() + FOLLOW_LIMIT_MS;
  try {
    while (Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, FOLLOW_PAUSE_MS));
      if (await ask(job, false)) return;
    }
    say(job.status, `${job.name} is still being read. Reload the page later to see its results.`);
  } catch (error) {
    refused(job, error);
  }
}

async function importReport(form: HTMLFormElement, input: HTMLInputElement, job: Omit<Import, "fileId" | "name">) {
  const { status } = job;
  const file = input.files?.[0];
  if (!file) {
    say(status, "Choose a PDF file first.", "error");
    input.focus();
    return;
  }
  if (file.type !== "application/pdf" && !/\.pdf$/i.test(file.name)) {
    say(status, `${file.name} is not a PDF. Choose the report as a PDF file.`, "error");
    return;
  }
  await busy(form, async () => {
    let fileId: string;
    try {
      fileId = await uploadFile(file, (text) => say(status, `${file.name}: ${text}`));
    } catch (error) {
      if (!showPlanNotice(error, job.session))
        say(status, `${file.name} could not be uploaded: ${uploadProblem(error)}`, "error");
      return;
    }
    const started: Import = { ...job, fileId, name: file.name };
    try {
      say(status, `${file.name}: reading the report…`);
      const done = await ask(started, true);
      form.reset();
      if (done) return;
      say(status, `Processing: ${file.name} is still being read. Its results appear below when it is done.`);
      // The form is free for another report meanwhile.
      void follow(started);
    } catch (error) {
      refused(started, error);
    }
  });
}

/** Wires the import form; `refresh` reloads the panel list. */
export function initImport(session: Session, refresh: () => Promise<void>): void {
  const form = byId<HTMLFormElement>("import-form");
  const input = byId<HTMLInputElement>("import-file");
  const status = byId("import-status");
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    void importReport(form, input, { session, status, refresh });
  });
}
