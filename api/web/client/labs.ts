import { ApiError, api, type Session } from "./api";
import { busy, byId, h, say } from "./dom";
import { drawLabChart, flagCell, historyRows, summarize } from "./labChart";
import {
  type AnalyteChoice,
  type AnalyteHistory,
  analyteChoices,
  collectedDate,
  counted,
  isFlagged,
  type LabPanel,
  matchPoints,
  rangeText,
} from "./labData";
import { initImport } from "./labImport";
import { showApiError, showConsentNotice } from "./profile";

/**
 * The Labs page: import a report (upload the PDF like a chat attachment, then ask the API to read
 * it), the panels newest first with flagged values marked, one test's history as a chart with its
 * reference range, and deleting a panel.
 */

interface PanelList {
  consentGiven: boolean;
  panels: LabPanel[];
  next_cursor: string | null;
}

const MAX_PAGES = 10;

let session: Session;
let panels: LabPanel[] = [];
let choices: AnalyteChoice[] = [];
/** Counts chart requests, so a slow answer for a test no longer chosen is dropped. */
let chartRequest = 0;

const select = () => byId<HTMLSelectElement>("analyte-select");

function handle(error: unknown, status: HTMLElement): void {
  showApiError(session, error, status);
}

const panelTitle = (panel: LabPanel) => `${collectedDate(panel.collectedAt)} · ${panel.lab ?? "Laboratory not named"}`;

function sourceText(panel: LabPanel): string {
  if (!panel.source) return "Entered by hand";
  if (panel.source.recordImportId) return "Imported from a health record";
  const pages = panel.source.pages;
  if (pages.length === 0) return "Imported from a report";
  const first = Math.min(...pages);
  const last = Math.max(...pages);
  return `Imported from a report, ${first === last ? `page ${first}` : `pages ${first}–${last}`}`;
}

/** A table's box, a tab stop so a keyboard can scroll it sideways on a narrow screen. */
function scrollBox(table: HTMLTableElement, captionId: string): HTMLElement {
  return h("div", { class: "table-wrap", tabindex: "0", role: "group", "aria-labelledby": captionId }, table);
}

function panelView(panel: LabPanel): HTMLElement {
  const headingId = `panel-${panel.id}`;
  const flagged = panel.results.filter(isFlagged).length;
  const remove = h(
    "button",
    { type: "button", class: "secondary small", "data-delete": panel.id },
    "Delete",
    h("span", { class: "visually-hidden" }, ` the panel of ${panelTitle(panel)}`),
  );
  remove.addEventListener("click", () => void removePanel(panel, remove));
  const rows = panel.results.map((result) => {
    const range = rangeText(result.referenceRange);
    return h(
      "tr",
      { class: isFlagged(result) ? "flagged" : undefined, "data-flag": result.flag ?? undefined },
      h("th", { scope: "row" }, result.name),
      h("td", {}, result.valueText),
      h("td", {}, result.unit ?? ""),
      h("td", {}, range ?? "—"),
      flagCell(result.flag),
    );
  });
  const table = h(
    "table",
    {},
    h("caption", { class: "visually-hidden", id: `${headingId}-caption` }, `Results of ${panelTitle(panel)}`),
    h(
      "thead",
      {},
      h(
        "tr",
        {},
        ...["Test", "Result", "Unit", "Reference range", "Flag"].map((name) => h("th", { scope: "col" }, name)),
      ),
    ),
    h("tbody", {}, ...rows),
  );
  const count = `${counted(panel.results.length, "result")}, ${flagged} flagged`;
  return h(
    "article",
    { class: "lab-panel", "aria-labelledby": headingId, "data-panel-id": panel.id },
    h("div", { class: "lab-panel-head" }, h("h3", { id: headingId }, panelTitle(panel)), remove),
    h("p", { class: "hint" }, `${sourceText(panel)} · ${count}`),
    scrollBox(table, `${headingId}-caption`),
  );
}

async function loadPanels(): Promise<void> {
  const loaded: LabPanel[] = [];
  let cursor: string | null = null;
  let consentGiven = true;
  for (let page = 0; page < MAX_PAGES; page += 1) {
    const query: string = cursor ? `&cursor=${encodeURIComponent(cursor)}` : "";
    const list: PanelList = await api<PanelList>(`/api/health/labs?limit=100${query}`);
    consentGiven = list.consentGiven;
    loaded.push(...list.panels);
    cursor = list.next_cursor;
    if (!cursor) break;
  }
  if (!consentGiven) showConsentNotice();
  panels = loaded;
  byId("panels").replaceChildren(...panels.map(panelView));
  byId("panels-empty").hidden = panels.length > 0;
  byId("lab-export").hidden = panels.length === 0;
  await showChoices();
}

/** The test picker from the panels' results; the chart follows the test still chosen. */
async function showChoices(): Promise<void> {
  const chosen = select().value;
  choices = analyteChoices(panels);
  select().replaceChildren(
    h("option", { value: "" }, "Choose a test…"),
    ...choices.map((choice) =>
      h("option", { value: choice.key }, `${choice.label} (${counted(choice.count, "result")})`),
    ),
  );
  byId("analyte-section").hidden = choices.length === 0;
  const still = choices.find((choice) => choice.key === chosen);
  select().value = still ? still.key : "";
  await showAnalyte(still);
}

async function history(choice: AnalyteChoice): Promise<AnalyteHistory> {
  const path = `/api/health/labs/analytes/${encodeURIComponent(choice.query)}`;
  if (!choice.unit) return api<AnalyteHistory>(path);
  try {
    // In the newest report's unit, so its printed reference range can be drawn as it is.
    return await api<AnalyteHistory>(`${path}?unit=${encodeURIComponent(choice.unit)}`);
  } catch (error) {
    // A unit the analyte cannot be converted to: its own unit instead.
    if (error instanceof ApiError && (error.status === 400 || error.status === 422)) return api<AnalyteHistory>(path);
    throw error;
  }
}

async function showAnalyte(choice: AnalyteChoice | undefined): Promise<void> {
  const request = ++chartRequest;
  const status = byId("analyte-status");
  if (!choice) {
    byId("analyte-view").hidden = true;
    say(status, "");
    return;
  }
  say(status, `Loading ${choice.label}…`);
  try {
    const found = await history(choice);
    if (request !== chartRequest) return;
    const points = matchPoints(found, choice, panels);
    drawLabChart(byId("analyte-chart"), found, points);
    const summary = summarize(found, points);
    byId("analyte-summary").textContent = summary;
    byId("analyte-caption").textContent = `${found.analyte.name} results, oldest first`;
    byId("analyte-table")
      .querySelector("tbody")
      ?.replaceChildren(...historyRows(found, points));
    byId("analyte-view").hidden = false;
    say(status, `Showing ${found.analyte.name}.`);
  } catch (error) {
    if (request === chartRequest) handle(error, status);
  }
}

async function removePanel(panel: LabPanel, button: HTMLButtonElement): Promise<void> {
  const what = `the panel of ${panelTitle(panel)} (${counted(panel.results.length, "result")})`;
  if (!confirm(`Delete ${what}? This cannot be undone.`)) return;
  const status = byId("panels-status");
  await busy(button, async () => {
    try {
      await api(`/api/health/labs/${encodeURIComponent(panel.id)}`, { method: "DELETE" });
      await loadPanels();
      say(status, `Deleted ${what}.`, "success");
      // The button is gone with its panel: keep the keyboard in the list.
      byId("panels-heading").focus();
    } catch (error) {
      handle(error, status);
    }
  });
}

export async function initLabs(current: Session): Promise<void> {
  session = current;
  initImport(session, loadPanels);
  select().addEventListener("change", () => void showAnalyte(choices.find((choice) => choice.key === select().value)));
  await loadPanels().catch((error) => handle(error, byId("panels-status")));
}
