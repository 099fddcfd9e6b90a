import { api, type Session } from "./api";
import { drawChart } from "./chart";
import { busy, byId, formatTime, h, say } from "./dom";
import { showApiError, showConsentNotice } from "./profile";
import { SymptomPicker } from "./symptoms";

interface Entry {
  id: string;
  severity: number | null;
  symptoms: string[];
  temperature: number | null;
  temperatureUnit: "C" | "F" | null;
  activityImpact: string | null;
  note: string | null;
  recordedAt: string;
}

interface HealthLog {
  id: string;
  title: string;
  kind: string;
  status: string;
  entryCount: number;
  entries: Entry[];
}

let session: Session;
let picker: SymptomPicker;

const handle = (error: unknown, status: HTMLElement) => showApiError(session, error, status);

const select = () => byId<HTMLSelectElement>("log-select");

async function loadLogs(selectId?: string): Promise<void> {
  const { trackers, consentGiven } = await api<{ trackers: HealthLog[]; consentGiven: boolean }>(
    "/api/health/trackers?limit=100",
  );
  if (!consentGiven) showConsentNotice();
  const options = trackers.map((log) =>
    h("option", { value: log.id }, `${log.title} (${log.status}, ${log.entryCount} entries)`),
  );
  select().replaceChildren(...options);
  byId("log-empty").hidden = trackers.length > 0;
  select().hidden = trackers.length === 0;
  const chosen = selectId ?? trackers[0]?.id;
  if (chosen) {
    select().value = chosen;
    await showLog(chosen);
  } else {
    byId("entry-section").hidden = true;
    byId("chart-section").hidden = true;
  }
}

function entryRow(entry: Entry): HTMLTableRowElement {
  return h(
    "tr",
    { "data-entry-id": entry.id },
    h("td", {}, formatTime(entry.recordedAt)),
    h("td", {}, entry.severity === null ? "—" : String(entry.severity)),
    h("td", {}, entry.temperature === null ? "—" : `${entry.temperature} °${entry.temperatureUnit}`),
    h("td", {}, entry.symptoms.map((symptom) => picker.label(symptom)).join(", ") || "—"),
    h("td", {}, entry.activityImpact ?? "—"),
    h("td", {}, entry.note ?? ""),
  );
}

async function showLog(id: string): Promise<void> {
  const log = await api<HealthLog>(`/api/health/trackers/${encodeURIComponent(id)}`);
  // The options first: the table shows their labels for the ids entries store.
  await picker.show(log.kind);
  byId("entry-section").hidden = log.status !== "active";
  byId("entry-heading").textContent = `Add an entry to “${log.title}”`;
  byId("chart-section").hidden = false;
  byId("export").replaceChildren(
    h(
      "a",
      { href: `/api/health/trackers/${encodeURIComponent(id)}/export?format=csv`, download: true },
      "Download this log as CSV",
    ),
    " (for a spreadsheet, or to bring to a doctor)",
  );
  const body = byId("entries-table").querySelector("tbody") as HTMLTableSectionElement;
  body.replaceChildren(...log.entries.map(entryRow));
  if (log.entries.length === 0) {
    body.append(h("tr", {}, h("td", { colspan: "6" }, "No entries yet.")));
    byId("chart").replaceChildren(h("p", { class: "muted" }, "The chart appears after the first entry."));
    byId("chart-caption").textContent = "";
  } else {
    byId("chart-caption").textContent = drawChart(byId("chart"), log.entries);
  }
}

/** The entry body from the form: only the observations that were filled in. */
function entryBody(form: HTMLFormElement): Record<string, unknown> {
  const data = new FormData(form);
  const body: Record<string, unknown> = {};
  const severity = String(data.get("severity") ?? "").trim();
  if (severity) body.severity = Number(severity);
  const temperature = String(data.get("temperature") ?? "").trim();
  if (temperature) {
    body.temperature = Number(temperature);
    body.temperatureUnit = data.get("temperatureUnit");
  }
  const symptoms = picker.chosen();
  if (symptoms.length) body.symptoms = symptoms;
  if (data.get("activityImpact")) body.activityImpact = data.get("activityImpact");
  const note = String(data.get("note") ?? "").trim();
  if (note) body.note = note;
  return body;
}

export async function initLogs(current: Session): Promise<void> {
  session = current;
  picker = new SymptomPicker();
  const logForm = byId<HTMLFormElement>("log-form");
  logForm.addEventListener("submit", (event) => {
    event.preventDefault();
    const data = new FormData(logForm);
    void busy(logForm, async () => {
      try {
        const created = await api<HealthLog>("/api/health/trackers", {
          method: "POST",
          body: { title: String(data.get("title") ?? "").trim(), kind: data.get("kind") },
        });
        say(byId("log-status"), `Log “${created.title}” created.`, "success");
        logForm.reset();
        await loadLogs(created.id);
      } catch (error) {
        handle(error, byId("log-status"));
      }
    });
  });
  select().addEventListener("change", () => void showLog(select().value).catch((e) => handle(e, byId("log-status"))));
  const entryForm = byId<HTMLFormElement>("entry-form");
  entryForm.addEventListener("submit", (event) => {
    event.preventDefault();
    const body = entryBody(entryForm);
    const status = byId("entry-status");
    if (Object.keys(body).length === 0) {
      say(status, "Fill in at least one observation.", "error");
      return;
    }
    const problem = picker.problem();
    if (problem) {
      say(status, problem, "error");
      return;
    }
    void busy(entryForm, async () => {
      try {
        await api(`/api/health/trackers/${encodeURIComponent(select().value)}/entries`, { method: "POST", body });
        say(status, "Entry added.", "success");
        entryForm.reset();
        await loadLogs(select().value);
      } catch (error) {
        handle(error, status);
      }
    });
  });
  await loadLogs().catch((error) => handle(error, byId("log-status")));
}
