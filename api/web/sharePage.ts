/**
 * The page a share link opens: the record's summary for a doctor, server-rendered with no script.
 * Every value is escaped (names come from imported files). It names no account, only the patient
 * as the newest imported record does (as the FHIR download's Patient does).
 */
import type { LabTrend, LogDigest, SharedRecord } from "../../shared/sharing/schemas";
import { escapeHtml as e } from "./html";
import { sparkline } from "./sparkline";

/** No script at all; the site's stylesheet; inline SVG needs nothing more. */
export const SHARE_PAGE_CSP =
  "default-src 'none'; style-src 'self'; img-src 'self' data:; frame-ancestors 'none'; base-uri 'none'; form-action 'none'";

const day = (text: string | null | undefined) => (text ? e(/^\d{4}-\d\d-\d\d/.exec(text)?.[0] ?? text) : "—");
const moment = (iso: string) => `${e(iso.slice(0, 10))} ${e(iso.slice(11, 16))} UTC`;
const time = (iso: string) => `<time datetime="${e(iso)}">${moment(iso)}</time>`;

function document(title: string, body: string, stylesheet: string): string {
  return `<!doctype html>
<html lang="en">
  <head>
    <meta charset="utf-8">
    <meta name="viewport" content="width=device-width, initial-scale=1">
    <meta name="robots" content="noindex, nofollow">
    <title>${e(title)} · Papers &amp; Health</title>
    <link rel="stylesheet" href="${e(stylesheet)}">
  </head>
  <body>
    <header class="site"><span class="brand">Papers &amp; Health</span></header>
    <main id="main">
      <h1>${e(title)}</h1>
      ${body}
    </main>
    <footer class="site"><p>The patient entered or imported this information; it is not a clinic's record.</p></footer>
  </body>
</html>
`;
}

function section(id: string, title: string, content: string | null, empty: string): string {
  return `<section class="card" aria-labelledby="${id}"><h2 id="${id}">${e(title)}</h2>${content ?? `<p class="hint">${e(empty)}</p>`}</section>`;
}

const list = <T>(items: readonly T[], item: (value: T) => string) =>
  items.length ? `<ul>${items.map((value) => `<li>${item(value)}</li>`).join("")}</ul>` : null;

function table<T>(caption: string, head: string[], rows: readonly T[], row: (value: T) => string): string | null {
  if (rows.length === 0) return null;
  const columns = head.map((name) => `<th scope="col">${e(name)}</th>`).join("");
  return `<div class="table-wrap"><table><caption class="visually-hidden">${e(caption)}</caption><thead><tr>${columns}</tr></thead><tbody>${rows.map(row).join("")}</tbody></table></div>`;
}

const VACCINE_COLUMNS = ["Vaccine", "Latest dose", "Doses recorded"];
const LAB_COLUMNS = ["Test", "Latest", "Flag", "Collected", "Trend", "Earlier results"];
const DIRECTION: Record<string, string> = { up: "↑ up", down: "↓ down", steady: "→ steady" };

const value = (point: LabTrend["latest"]) => `${e(point.valueText)}${point.unit ? ` ${e(point.unit)}` : ""}`;
const flag = (point: LabTrend["latest"]) => (point.flag && point.flag !== "normal" ? e(point.flag) : "");

function labRow(trend: LabTrend): string {
  const earlier =
    trend.previous
      .map((point) => `${value(point)}${flag(point) ? `, ${flag(point)}` : ""} (${day(point.collectedAt)})`)
      .join("; ") || "—";
  const label = `${trend.name}: ${trend.series.length} results from ${trend.series[0]} to ${trend.series.at(-1)} ${trend.latest.unit ?? ""}`;
  const flagged = trend.latest.flag && trend.latest.flag !== "normal";
  return `<tr${flagged ? ' class="flagged"' : ""}><th scope="row">${e(trend.name)}</th><td>${value(trend.latest)}</td><td>${flag(trend.latest)}</td><td>${day(trend.latest.collectedAt)}</td><td>${sparkline(trend.series, label.trim())} ${e(trend.direction ? (DIRECTION[trend.direction] ?? "") : "—")}</td><td>${earlier}</td></tr>`;
}

const range = (min: number | null, max: number | null, unit = "") =>
  min === null || max === null ? "—" : `${min === max ? e(String(min)) : `${e(String(min))}–${e(String(max))}`}${unit}`;

function logArticle(log: LogDigest): string {
  const symptoms = log.symptoms.map((s) => `${e(s.symptom)} (${s.count})`).join(", ") || "none named";
  const [first, last] = [day(log.firstRecordedAt), day(log.lastRecordedAt)];
  const dates = first === last ? first : `${first} to ${last}`;
  const trend = log.severity.trend ? `, ${e(log.severity.trend)}` : "";
  return `<article class="shared-log"><h3>${e(log.title)}</h3><dl class="facts">
    <div><dt>Kind</dt><dd>${e(log.kind)}</dd></div><div><dt>Status</dt><dd>${e(log.status)}</dd></div>
    <div><dt>Entries</dt><dd>${log.entries}</dd></div><div><dt>Dates</dt><dd>${dates}</dd></div>
    <div><dt>Severity (0–10)</dt><dd>${range(log.severity.min, log.severity.max)}${trend}</dd></div>
    <div><dt>Temperature</dt><dd>${range(log.temperature.min, log.temperature.max, ` °${e(log.temperature.unit)}`)}</dd></div>
    <div><dt>Most frequent symptoms</dt><dd>${symptoms}</dd></div></dl></article>`;
}

function intro(record: SharedRecord, token: string): string {
  const { name, birthDate } = record.patient;
  const who =
    name || birthDate
      ? `<p>Patient, as the imported record names them: <strong>${e(name ?? "not named")}</strong>${birthDate ? `, born ${day(birthDate)}` : ""}.</p>`
      : "";
  return `<section class="card notice" aria-label="About this page">${who}
    <p>A read-only summary shared by the patient. This link works until ${time(record.expiresAt)}, unless the patient revokes it sooner; each opening is recorded.</p>
    <p><a href="/share/${encodeURIComponent(token)}/fhir" download>Download the whole record as FHIR R4 (JSON)</a></p>
    <p class="hint">Prepared ${time(record.generatedAt)}.</p></section>`;
}

const source = (item: { source: string }) =>
  item.source === "typed" ? ' <span class="hint">(entered by the patient)</span>' : "";
const note = (text: string | null | undefined) => (text ? ` <span class="hint">${text}</span>` : "");

/** Conditions, medications, allergies and immunizations. */
function profileSections(record: SharedRecord): string[] {
  const allergy = (a: SharedRecord["allergies"][number]) =>
    `<tr><th scope="row">${e(a.substance)}</th><td>${e(a.reactions.join(", ") || "—")}</td><td>${e(a.criticality ?? "—")}</td></tr>`;
  const vaccine = (i: SharedRecord["immunizations"][number]) =>
    `<tr><th scope="row">${e(i.vaccine)}</th><td>${day(i.latestDate)}</td><td>${i.doses}</td></tr>`;
  return [
    section(
      "conditions",
      "Conditions",
      list(record.conditions, (c) => `${e(c.name)}${note(c.onset && `since ${day(c.onset)}`)}${source(c)}`),
      "None recorded.",
    ),
    section(
      "medications",
      "Medications",
      list(record.medications, (m) => `${e(m.name)}${note(m.status && e(m.status))}${source(m)}`),
      "None recorded.",
    ),
    section(
      "allergies",
      "Allergies and intolerances",
      table("Allergies", ["Substance", "Reactions", "Criticality"], record.allergies, allergy),
      "None recorded.",
    ),
    section(
      "immunizations",
      "Immunizations",
      table("Immunizations, latest dose per vaccine", VACCINE_COLUMNS, record.immunizations, vaccine),
      "None recorded.",
    ),
  ];
}

/** Lab tests with their trends, and the symptom logs' summaries. */
function historySections(record: SharedRecord): string[] {
  const labs = table("Lab tests, most recent first", LAB_COLUMNS, record.labs, labRow);
  const moreLabs = record.more.labs
    ? `<p class="hint">${record.more.labs} more tests, measured earlier, are in the FHIR download.</p>`
    : "";
  const moreLogs = record.more.logs ? '<p class="hint">Older logs are not shown.</p>' : "";
  const logs = record.logs.length ? `${record.logs.map(logArticle).join("")}${moreLogs}` : null;
  return [
    section("labs", "Lab results", labs && `${labs}${moreLabs}`, "None recorded."),
    section("logs", "Symptom logs", logs, "None kept."),
  ];
}

export function renderSharedRecord(record: SharedRecord, options: { token: string; stylesheet: string }): string {
  const body = [intro(record, options.token), ...profileSections(record), ...historySections(record)];
  return document("Shared health record", body.join("\n"), options.stylesheet);
}

/** The answer for a link that does not work (whatever the reason) or too many requests. */
export function renderShareRefusal(kind: "NOT_FOUND" | "RATE_LIMITED", stylesheet: string): string {
  return kind === "NOT_FOUND"
    ? document(
        "This link does not work",
        "<p>The link may have expired or been revoked, or the address may be incomplete. Ask the person who shared it for a new one.</p>",
        stylesheet,
      )
    : document(
        "Too many requests",
        "<p>Too many requests came from this address. Try again in a minute.</p>",
        stylesheet,
      );
}
