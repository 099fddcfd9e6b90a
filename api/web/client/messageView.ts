import { h } from "./dom";
import type { UIChunk } from "./stream";
import { ToolView } from "./toolView";

/** The `data-urgent` part: red-flag signs the server's triage found, sent before any text. */
export interface UrgentData {
  signs: { id: string; label: string; category: string }[];
  advice: string;
  source: "message" | "entry";
}

/**
 * The urgent part as an alert block. The advice itself is the reply's first text, right below,
 * so the block names the signs. `live` makes it an alert that is announced as it arrives.
 */
function urgentBlock(data: UrgentData, live: boolean): HTMLElement {
  const labels = [...new Set((data.signs ?? []).map((sign) => sign.label))];
  const where = data.source === "entry" ? "In the entry just recorded" : "In your message";
  return h(
    "div",
    { class: "urgent-alert", role: live ? "alert" : undefined, "data-source": data.source },
    h(
      "p",
      { class: "urgent-title" },
      h("span", { "aria-hidden": "true" }, "⚠ "),
      "Urgent: this may need medical care now",
    ),
    labels.length ? h("p", {}, `${where}: signs that can mean an emergency.`) : null,
    labels.length ? h("ul", {}, ...labels.map((label) => h("li", {}, label))) : null,
  );
}

/** The `data-triage` part: the level the server's triage gave the message, sent first. */
export interface TriageData {
  level: "emergency" | "urgent" | "soon" | "self_care" | "none";
  reason: string;
}

const LEVEL_WORDS: Record<TriageData["level"], string> = {
  emergency: "Emergency: call your emergency number now",
  urgent: "Urgent: get medical care today",
  soon: "See a doctor within a few days",
  self_care: "Self-care",
  none: "",
};

/** The level as a short labelled line above the reply (nothing for `none`: not a report of symptoms). */
function triageLine(data: TriageData): HTMLElement | null {
  const words = LEVEL_WORDS[data.level];
  if (!words) return null;
  return h("p", { class: `triage-level triage-${data.level}`, "data-level": data.level }, `Triage: ${words}`);
}

/** A stored message as the API returns it (the AI SDK's UIMessage). */
export interface StoredMessage {
  id: string;
  role: "user" | "assistant" | "system";
  parts: { type: string; [field: string]: unknown }[];
  metadata?: { attachmentIds?: string[] } | null;
}

/** An assistant message built from UI stream chunks: text grows in place, tools and sources get boxes. */
export class AssistantView {
  readonly root: HTMLElement;
  private readonly content: HTMLElement;
  private readonly urgent: HTMLElement;
  private readonly sources: HTMLUListElement;
  private readonly texts = new Map<string, Text>();
  private readonly tools = new Map<string, ToolView>();

  constructor() {
    this.content = h("div", { class: "content" });
    this.urgent = h("div", { class: "urgent-box" });
    this.sources = h("ul", { class: "sources" });
    this.root = h(
      "article",
      { class: "message assistant", "aria-label": "Assistant", "aria-busy": "false" },
      h("p", { class: "who" }, "Assistant"),
      this.urgent,
      this.content,
      h("div", { class: "sources-box", hidden: true }, h("p", { class: "who" }, "Sources"), this.sources),
    );
  }

  set streaming(on: boolean) {
    this.root.setAttribute("aria-busy", String(on));
    this.root.classList.toggle("streaming", on);
    if (!on) this.linkify();
  }

  /** Once the text is complete, its web addresses become links (mid-stream an address may be cut). */
  private linkify(): void {
    for (const node of this.texts.values()) {
      const parts = node.data.split(/(https?:\/\/[^\s)<>"]+[^\s)<>".,;:!?])/);
      if (parts.length === 1 || !node.parentElement) continue;
      node.parentElement.replaceChildren(
        ...parts.map((part, index) =>
          index % 2 === 1 ? h("a", { href: part, rel: "noopener noreferrer", target: "_blank" }, part) : part,
        ),
      );
    }
  }

  private text(id: string): Text {
    let node = this.texts.get(id);
    if (!node) {
      node = document.createTextNode("");
      this.content.append(h("p", { class: "text" }, node));
      this.texts.set(id, node);
    }
    return node;
  }

  private tool(id: string, name: string): ToolView {
    let view = this.tools.get(id);
    if (!view) {
      view = new ToolView(name);
      this.content.append(view.root);
      this.tools.set(id, view);
    }
    return view;
  }

  private source(url: string, title: string | undefined): void {
    this.sources.append(h("li", {}, h("a", { href: url, rel: "noopener noreferrer", target: "_blank" }, title || url)));
    (this.sources.parentElement as HTMLElement).hidden = false;
  }

  /** Shows the triage level above everything else in the reply. */
  triagePart(data: TriageData): void {
    this.urgent.querySelector(".triage-level")?.remove();
    const line = triageLine(data);
    if (line) this.urgent.prepend(line);
  }

  /** Shows an urgent part above the text; one with the same id (`urgent-message`, `urgent-entry`) replaces it. */
  urgentPart(id: string, data: UrgentData, live = true): void {
    const block = urgentBlock(data, live);
    block.dataset.partId = id;
    const same = Array.from(this.urgent.children).find((child) => (child as HTMLElement).dataset.partId === id);
    if (same) same.replaceWith(block);
    else this.urgent.append(block);
  }

  error(text: string): void {
    this.content.append(h("p", { class: "error", role: "alert" }, text));
  }

  /** Applies one chunk of the stream. */
  apply(chunk: UIChunk): void {
    const id = String(chunk.id ?? chunk.toolCallId ?? "");
    switch (chunk.type) {
      case "text-start":
        this.text(id);
        break;
      case "text-delta":
        this.text(id).appendData(String(chunk.delta ?? ""));
        break;
      case "tool-input-start":
        this.tool(id, String(chunk.toolName));
        break;
      case "tool-input-available":
        this.tool(id, String(chunk.toolName)).input(chunk.input);
        break;
      case "tool-input-error":
        this.tool(id, String(chunk.toolName)).error(String(chunk.errorText));
        break;
      case "tool-output-available":
        this.tools.get(id)?.output(chunk.output);
        break;
      case "tool-output-error":
        this.tools.get(id)?.error(String(chunk.errorText));
        break;
      case "data-triage":
        if (chunk.data) this.triagePart(chunk.data as TriageData);
        break;
      case "data-urgent":
        if (chunk.data) this.urgentPart(id, chunk.data as UrgentData);
        break;
      case "source-url":
        this.source(String(chunk.url), chunk.title as string | undefined);
        break;
      case "error":
        this.error(`The assistant failed: ${String(chunk.errorText ?? "unknown error")}`);
        break;
    }
  }

  /** Replays a stored message's parts through the same rendering as a live stream. */
  static fromStored(message: StoredMessage): AssistantView {
    const view = new AssistantView();
    message.parts.forEach((part, index) => {
      if (part.type === "text") {
        view.apply({ type: "text-delta", id: `stored-${index}`, delta: part.text });
      } else if (part.type.startsWith("tool-")) {
        const toolCallId = String(part.toolCallId ?? index);
        const toolName = part.type.slice("tool-".length);
        view.apply({ type: "tool-input-available", toolCallId, toolName, input: part.input });
        if (part.state === "output-error")
          view.apply({ type: "tool-output-error", toolCallId, errorText: part.errorText });
        else if (part.state === "output-available")
          view.apply({ type: "tool-output-available", toolCallId, output: part.output });
      } else if (part.type === "source-url") {
        view.apply(part);
      } else if (part.type === "data-triage" && part.data) {
        view.triagePart(part.data as TriageData);
      } else if (part.type === "data-urgent" && part.data) {
        view.urgentPart(String(part.id ?? "urgent"), part.data as UrgentData, false);
      }
    });
    view.streaming = false;
    return view;
  }
}

export function userView(text: string, attachments: string[] = []): HTMLElement {
  return h(
    "article",
    { class: "message user", "aria-label": "You" },
    h("p", { class: "who" }, "You"),
    h("p", { class: "text" }, text),
    attachments.length ? h("p", { class: "hint" }, `Attached: ${attachments.join(", ")}`) : null,
  );
}

export function storedView(message: StoredMessage): HTMLElement {
  if (message.role === "assistant") return AssistantView.fromStored(message).root;
  const text = message.parts
    .filter((part) => part.type === "text")
    .map((part) => String(part.text))
    .join("\n");
  const attached = message.metadata?.attachmentIds?.length ?? 0;
  return userView(text, attached ? [`${attached} file${attached === 1 ? "" : "s"}`] : []);
}
