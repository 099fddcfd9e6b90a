import { api } from "./api";
import { byId, h } from "./dom";

/** One of the symptom options the API lists for a log kind. */
export interface SymptomOption {
  id: string;
  label: string;
  urgent?: boolean;
}

/** The entry form's limits (shared/health/schemas.ts ENTRY_LIMITS). */
export const SYMPTOM_LIMITS = { count: 16, length: 60 } as const;

const URGENT_ADVICE =
  "This can be a sign of a medical emergency. If it is severe or sudden, call your local emergency number or go to urgent care now.";

const cache = new Map<string, Promise<SymptomOption[]>>();

/** The options of a log kind, fetched once per page. */
export function symptomOptions(kind: string): Promise<SymptomOption[]> {
  let options = cache.get(kind);
  if (!options) {
    options = api<{ symptoms: SymptomOption[] }>(`/api/health/symptoms?kind=${encodeURIComponent(kind)}`).then(
      (list) => list.symptoms,
    );
    // A failed fetch is not remembered: the next log shown tries again.
    options.catch(() => cache.delete(kind));
    cache.set(kind, options);
  }
  return options;
}

/** A symptom's words without case and separators, so "Chest pain" and "chest_pain" compare equal. */
const normal = (text: string) =>
  text
    .toLowerCase()
    .replace(/[\s_-]+/g, " ")
    .trim();

/** A visible text marker for urgent options: colour is never the only sign. */
function urgentTag(): HTMLElement {
  return h("span", { class: "urgent-tag" }, h("span", { "aria-hidden": "true" }, "⚠ "), "urgent");
}

/**
 * The entry form's symptom choices: a checkbox per option of the log's kind, urgent ones in a group
 * of their own and marked, a filter box, and free text for anything not listed. Ticking an urgent
 * option (or typing its name) fills the alert region with urgent-care advice before saving.
 */
export class SymptomPicker {
  private options: SymptomOption[] = [];
  private readonly list = byId("symptom-options");
  private readonly filter = byId<HTMLInputElement>("symptom-filter");
  private readonly free = byId<HTMLInputElement>("entry-symptoms");
  private readonly notice = byId("urgent-notice");
  private readonly count = byId("symptom-count");

  constructor() {
    this.list.addEventListener("change", () => this.update());
    this.free.addEventListener("input", () => this.update());
    this.filter.addEventListener("input", () => this.applyFilter());
    // Enter in the filter would submit the entry form.
    this.filter.addEventListener("keydown", (event) => {
      if (event.key === "Enter") event.preventDefault();
    });
  }

  /** Shows the options of `kind`; the choices made so far are cleared. */
  async show(kind: string): Promise<void> {
    this.options = await symptomOptions(kind);
    const urgent = this.options.filter((option) => option.urgent);
    const other = this.options.filter((option) => !option.urgent);
    this.list.replaceChildren(
      this.group("symptoms-urgent", "Warning signs", urgent),
      this.group("symptoms-other", "Other symptoms", other),
    );
    this.clear();
  }

  private group(id: string, title: string, options: SymptomOption[]): HTMLElement {
    return h(
      "fieldset",
      { class: "symptom-group", id, hidden: options.length === 0 },
      h("legend", {}, title),
      h("ul", { class: "symptom-list" }, ...options.map((option) => this.choice(option))),
    );
  }

  private choice(option: SymptomOption): HTMLElement {
    const id = `symptom-${option.id}`;
    return h(
      "li",
      { class: "check", "data-symptom": option.id, "data-label": normal(option.label) },
      h("input", { type: "checkbox", id, name: "symptomOption", value: option.id }),
      h("label", { for: id }, option.label, option.urgent ? " " : null, option.urgent ? urgentTag() : null),
    );
  }

  /** Unticks everything, empties the boxes and the notice (after a save or a change of log). */
  clear(): void {
    for (const box of this.boxes()) box.checked = false;
    this.filter.value = "";
    this.free.value = "";
    this.applyFilter();
    this.update();
  }

  private boxes(): HTMLInputElement[] {
    return Array.from(this.list.querySelectorAll<HTMLInputElement>("input[type=checkbox]"));
  }

  private applyFilter(): void {
    const words = normal(this.filter.value);
    let shown = 0;
    for (const item of this.list.querySelectorAll<HTMLElement>("li[data-symptom]")) {
      const box = item.querySelector("input") as HTMLInputElement;
      // A ticked option stays visible, so a filter never hides a choice already made.
      item.hidden = !box.checked && words !== "" && !(item.dataset.label ?? "").includes(words);
      if (!item.hidden) shown++;
    }
    for (const group of this.list.querySelectorAll<HTMLElement>("fieldset")) {
      const any = group.querySelector("li:not([hidden])") !== null;
      group.hidden = !any;
    }
    this.count.textContent = words ? `${shown} of ${this.options.length} symptoms shown.` : "";
  }

  /** The free-text symptoms, split on commas. */
  private typed(): string[] {
    return this.free.value
      .split(",")
      .map((symptom) => symptom.trim())
      .filter(Boolean);
  }

  /** The urgent options ticked, or typed by their name. */
  urgentChosen(): SymptomOption[] {
    const ticked = new Set(this.boxes().flatMap((box) => (box.checked ? [box.value] : [])));
    const typed = new Set(this.typed().map(normal));
    return this.options.filter(
      (option) =>
        option.urgent && (ticked.has(option.id) || typed.has(normal(option.label)) || typed.has(normal(option.id))),
    );
  }

  private update(): void {
    const urgent = this.urgentChosen();
    if (urgent.length === 0) {
      this.notice.replaceChildren();
      return;
    }
    const names = urgent.map((option) => option.label).join(", ");
    // The alert region stays in the page, empty until needed, so filling it is announced.
    this.notice.replaceChildren(
      h("p", { class: "urgent-title" }, h("span", { "aria-hidden": "true" }, "⚠ "), `Urgent sign: ${names}.`),
      h("p", {}, URGENT_ADVICE),
    );
  }

  /** The entry's `symptoms`: ticked option ids, then free text; duplicates (ignoring case) dropped. */
  chosen(): string[] {
    const all = [...this.boxes().flatMap((box) => (box.checked ? [box.value] : [])), ...this.typed()];
    const seen = new Set<string>();
    return all.filter((symptom) => {
      const key = symptom.toLowerCase();
      if (seen.has(key)) return false;
      seen.add(key);
      return true;
    });
  }

  /** Why the choices cannot be saved as they are, or null. */
  problem(): string | null {
    const chosen = this.chosen();
    if (chosen.length > SYMPTOM_LIMITS.count)
      return `Choose at most ${SYMPTOM_LIMITS.count} symptoms (${chosen.length} now).`;
    const long = chosen.find((symptom) => symptom.length > SYMPTOM_LIMITS.length);
    return long ? `Each symptom can have at most ${SYMPTOM_LIMITS.length} characters: “${long.slice(0, 20)}…”.` : null;
  }

  /** How a stored symptom reads: an option's label, or the free text as written. */
  label(symptom: string): string {
    return this.options.find((option) => option.id === symptom)?.label ?? symptom;
  }
}
