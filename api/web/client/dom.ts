/** A few DOM helpers, so the page modules stay declarative without a framework. */

export function byId<T extends HTMLElement = HTMLElement>(id: string): T {
  const element = document.getElementById(id);
  if (!element) throw new Error(`#${id} is missing from the page`);
  return element as T;
}

type Child = Node | string | null | undefined | false;

/** Creates an element with attributes (strings; `false`/undefined omit one) and children. */
export function h<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  attributes: Record<string, string | boolean | undefined> = {},
  ...children: Child[]
): HTMLElementTagNameMap[K] {
  const element = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes)) {
    if (value === false || value === undefined) continue;
    element.setAttribute(name, value === true ? "" : value);
  }
  for (const child of children) {
    if (child === null || child === undefined || child === false) continue;
    element.append(child);
  }
  return element;
}

/** Shows a message in a status/alert region; `tone` styles it. */
export function say(element: HTMLElement, message: string, tone: "info" | "error" | "success" = "info"): void {
  element.textContent = message;
  element.dataset.tone = tone;
}

export function formatTime(iso: string | null | undefined): string {
  if (!iso) return "—";
  return new Date(iso).toLocaleString(undefined, { dateStyle: "medium", timeStyle: "short" });
}

/** Disables a form's controls while `work` runs, so a double submit cannot send twice. */
export async function busy<T>(form: HTMLFormElement | HTMLButtonElement, work: () => Promise<T>): Promise<T> {
  const controls =
    form instanceof HTMLFormElement ? Array.from(form.querySelectorAll<HTMLButtonElement>("button")) : [form];
  for (const control of controls) control.disabled = true;
  form.setAttribute("aria-busy", "true");
  try {
    return await work();
  } finally {
    for (const control of controls) control.disabled = false;
    form.removeAttribute("aria-busy");
  }
}

/** Copies a text field's value; says so in the status region. */
export async function copyFrom(field: HTMLInputElement | HTMLTextAreaElement, status: HTMLElement): Promise<void> {
  try {
    await navigator.clipboard.writeText(field.value);
    say(status, "Copied to the clipboard.", "success");
  } catch {
    // Clipboard access can be refused (permissions, plain http): select the text for Ctrl+C instead.
    field.focus();
    field.select();
    say(status, "Press Ctrl+C (or ⌘C) to copy the selected text.");
  }
}
