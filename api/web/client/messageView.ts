import { h } from "./dom";
import type { UIChunk } from "./stream";
import { ToolView } from "./toolView";

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
  private readonly sources: HTMLUListElement;
  private readonly texts = new Map<string, Text>();
  private readonly tools = new Map<string, ToolView>();

  constructor() {
    this.content = h("div", { class: "content" });
    this.sources = h("ul", { class: "sources" });
    this.root = h(
      "article",
      { class: "message assistant", "aria-label": "Assistant", "aria-busy": "false" },
      h("p", { class: "who" }, "Assistant"),
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
