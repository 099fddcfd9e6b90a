import { h } from "./dom";

/** Tool calls in the chat, shown readably: which tool, with what, and its result as lists and tables. */

const MAX_ROWS = 8;
const MAX_TEXT = 400;
/** Table cells stay short (an abstract would fill the screen); the answer's text quotes what matters. */
const MAX_CELL = 160;
const PREFERRED_COLUMNS = ["title", "name", "label", "kind", "status", "severity", "entryCount", "year", "date", "url"];
/** Ids and cursors mean nothing to a reader; they stay out of tables. */
const HIDDEN_COLUMN = /^id$|Id$|ID$|_id$|cursor/;
const ISO_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}/;

const isScalar = (value: unknown) => value === null || ["string", "number", "boolean"].includes(typeof value);

function scalar(value: unknown, limit = MAX_TEXT): Node {
  if (value === null || value === undefined || value === "") return document.createTextNode("—");
  const text = String(value);
  if (ISO_TIME.test(text)) {
    return document.createTextNode(
      new Date(text).toLocaleString(undefined, { dateStyle: "medium", timeStyle: "short" }),
    );
  }
  if (/^https?:\/\/\S+$/.test(text)) return h("a", { href: text, rel: "noopener noreferrer", target: "_blank" }, text);
  return document.createTextNode(text.length > limit ? `${text.slice(0, limit)}…` : text);
}

const label = (key: string) =>
  key
    .replace(/_/g, " ")
    .replace(/([a-z])([A-Z])/g, "$1 $2")
    .toLowerCase();

function table(rows: Record<string, unknown>[]): HTMLElement {
  const keys = new Set<string>();
  for (const row of rows) {
    for (const [key, value] of Object.entries(row)) if (isScalar(value) && !HIDDEN_COLUMN.test(key)) keys.add(key);
  }
  const columns = [
    ...PREFERRED_COLUMNS.filter((key) => keys.has(key)),
    ...[...keys].filter((key) => !PREFERRED_COLUMNS.includes(key)),
  ].slice(0, 5);
  return h(
    "div",
    { class: "table-wrap" },
    h(
      "table",
      { class: "tool-table" },
      h("thead", {}, h("tr", {}, ...columns.map((key) => h("th", { scope: "col" }, label(key))))),
      h(
        "tbody",
        {},
        ...rows
          .slice(0, MAX_ROWS)
          .map((row) => h("tr", {}, ...columns.map((key) => h("td", {}, scalar(row[key], MAX_CELL))))),
      ),
    ),
  );
}

/** A JSON value as nested description lists, lists and tables (depth-limited). */
export function renderValue(value: unknown, depth = 0): Node {
  if (isScalar(value) || value === undefined) return scalar(value);
  if (depth > 3) return h("code", {}, JSON.stringify(value).slice(0, MAX_TEXT));
  if (Array.isArray(value)) {
    if (value.length === 0) return document.createTextNode("none");
    const more = value.length > MAX_ROWS ? h("p", { class: "hint" }, `and ${value.length - MAX_ROWS} more`) : null;
    if (value.every((item) => item && typeof item === "object" && !Array.isArray(item))) {
      return h("div", {}, table(value as Record<string, unknown>[]), more);
    }
    return h(
      "div",
      {},
      h("ul", {}, ...value.slice(0, MAX_ROWS).map((item) => h("li", {}, renderValue(item, depth + 1)))),
      more,
    );
  }
  const entries = Object.entries(value as Record<string, unknown>).filter(
    ([key, item]) => !(HIDDEN_COLUMN.test(key) && (item === null || typeof item === "string")),
  );
  if (entries.length === 0) return document.createTextNode("—");
  return h(
    "dl",
    { class: "tool-fields" },
    ...entries.flatMap(([key, item]) => [h("dt", {}, label(key)), h("dd", {}, renderValue(item, depth + 1))]),
  );
}

function inputSummary(input: unknown): string {
  if (!input || typeof input !== "object") return "";
  return Object.entries(input as Record<string, unknown>)
    .filter(([, value]) => isScalar(value) || Array.isArray(value))
    .map(([key, value]) => `${label(key)}: ${Array.isArray(value) ? value.join(", ") : String(value)}`)
    .join(" · ");
}

/** One tool call's box; updated as its input and output arrive. */
export class ToolView {
  readonly root: HTMLDetailsElement;
  private readonly summary: HTMLElement;
  private readonly state: HTMLElement;
  private readonly body: HTMLElement;

  constructor(private readonly toolName: string) {
    this.state = h("span", { class: "tool-state" }, "running…");
    this.summary = h("summary", {}, h("span", { class: "tool-name" }, `Tool: ${toolName}`), " ", this.state);
    this.body = h("div", { class: "tool-body" });
    this.root = h("details", { class: "tool", open: true, "data-tool": toolName }, this.summary, this.body);
  }

  input(input: unknown): void {
    const text = inputSummary(input);
    if (text) this.summary.append(h("span", { class: "tool-input" }, ` (${text})`));
  }

  output(output: unknown): void {
    this.state.textContent = "done";
    this.root.dataset.state = "output-available";
    this.body.replaceChildren(renderValue(output));
  }

  error(text: string): void {
    this.state.textContent = "failed";
    this.root.dataset.state = "output-error";
    this.body.replaceChildren(h("p", { class: "error" }, `${this.toolName} failed: ${text}`));
  }
}
