import { api, csrfHeaders, describeError, errorFrom, type Session } from "./api";
import { Attachments } from "./attachments";
import { byId, formatTime, h, say } from "./dom";
import { AssistantView, type StoredMessage, storedView, userView } from "./messageView";
import { showPlanNotice } from "./profile";
import { readUIChunks, type StreamProgress } from "./stream";
import { wireVoice } from "./voice";

interface ChatSummary {
  id: string;
  title: string;
  updatedAt: string;
}

let session: Session;
let chatId: string | undefined;

const messages = () => byId("messages");
const activity = () => byId("chat-activity");

function fail(error: unknown): void {
  if (!showPlanNotice(error, session)) say(byId("chat-status"), describeError(error), "error");
}

async function loadConversations(): Promise<void> {
  const { chats } = await api<{ chats: ChatSummary[] }>("/api/chats?surface=health&limit=50");
  const list = byId("conversation-list");
  list.replaceChildren(
    ...chats.map((chat) => {
      const link = h(
        "a",
        { href: `#${chat.id}`, "aria-current": chat.id === chatId ? "true" : undefined },
        h("span", {}, chat.title || "Untitled"),
        h("small", {}, formatTime(chat.updatedAt)),
      );
      link.addEventListener("click", (event) => {
        event.preventDefault();
        history.replaceState(null, "", `#${chat.id}`);
        void open(chat.id).catch(fail);
      });
      return h("li", {}, link);
    }),
  );
  if (chats.length === 0) list.append(h("li", { class: "muted" }, "No conversations yet."));
  const current = chats.find((chat) => chat.id === chatId);
  if (current) byId("chat-heading").textContent = current.title || "Conversation";
}

/** Fills the model picker with what the plan may run; "Automatic" lets the server route. */
async function loadModels(): Promise<void> {
  const { models } = await api<{ models: { id: string; label: string; default: boolean }[] }>(
    "/api/models?surface=health",
  );
  const picker = byId<HTMLSelectElement>("chat-model");
  picker.append(...models.map((model) => h("option", { value: model.id }, model.label || model.id)));
}

async function open(id: string): Promise<void> {
  const chat = await api<{ id: string; title: string; messages: StoredMessage[] }>(
    `/api/health/chat/${encodeURIComponent(id)}`,
  );
  chatId = chat.id;
  byId("chat-heading").textContent = chat.title || "Conversation";
  messages().replaceChildren(...chat.messages.map(storedView));
  for (const link of byId("conversation-list").querySelectorAll("a")) {
    if (link.getAttribute("href") === `#${id}`) link.setAttribute("aria-current", "true");
    else link.removeAttribute("aria-current");
  }
}

function startNew(focus = true): void {
  chatId = undefined;
  history.replaceState(null, "", location.pathname);
  byId("chat-heading").textContent = "New conversation";
  messages().replaceChildren();
  if (focus) byId("chat-message").focus();
}

const RESUME_ATTEMPTS = 3;

/** Applies the chunks of one stream to the reply; a broken connection just ends it early. */
async function follow(body: ReadableStream<Uint8Array>, reply: AssistantView, progress: StreamProgress) {
  try {
    for await (const chunk of readUIChunks(body, progress)) {
      reply.apply(chunk);
      reply.root.scrollIntoView({ block: "end" });
    }
  } catch {
    // A dropped connection: resume() picks up where the last event id left off.
  }
}

/**
 * The stream ended before `[DONE]` (a dropped connection, a proxy timeout). The turn goes on
 * server-side, so re-attach after the last event received; when the turn is over (204), show the
 * stored conversation, which holds the whole reply.
 */
async function resume(id: string, reply: AssistantView, progress: StreamProgress): Promise<void> {
  for (let attempt = 1; attempt <= RESUME_ATTEMPTS && !progress.done; attempt++) {
    say(activity(), "The connection dropped; reconnecting…");
    try {
      const response = await fetch(`/api/health/chat/${encodeURIComponent(id)}/stream`, {
        headers: { accept: "text/event-stream", ...(progress.lastId ? { "last-event-id": progress.lastId } : {}) },
      });
      if (response.status === 204) {
        await open(id);
        return;
      }
      if (!response.ok || !response.body) throw await errorFrom(response);
      await follow(response.body, reply, progress);
    } catch {
      await new Promise((resolve) => setTimeout(resolve, 1000 * attempt));
    }
  }
  if (!progress.done) {
    reply.error("The connection broke before the answer was complete. It is saved: reopen the conversation.");
  }
}

/** Sends one message and renders the reply as the stream arrives. */
async function sendMessage(text: string, attachmentIds: string[], names: string[]): Promise<void> {
  const sent = userView(text, names);
  messages().append(sent);
  const reply = new AssistantView();
  const body: Record<string, unknown> = { message: text, stream: true };
  if (chatId) body.chat_id = chatId;
  const model = byId<HTMLSelectElement>("chat-model").value;
  if (model !== "auto") body.model = model;
  if (attachmentIds.length) body.attachment_ids = attachmentIds;
  const response = await fetch("/api/health/chat", {
    method: "POST",
    headers: { "content-type": "application/json", accept: "text/event-stream", ...csrfHeaders() },
    body: JSON.stringify(body),
  });
  if (!response.ok || !response.body) {
    // Refused before anything was stored: the message goes back into the box, not into the chat.
    sent.remove();
    throw await errorFrom(response);
  }
  const isNew = !chatId;
  chatId = response.headers.get("x-chat-id") ?? chatId;
  reply.streaming = true;
  messages().append(reply.root);
  say(activity(), "The assistant is answering…");
  const progress: StreamProgress = { done: false };
  try {
    await follow(response.body, reply, progress);
    if (!progress.done && chatId) await resume(chatId, reply, progress);
  } finally {
    reply.streaming = false;
    say(activity(), "");
  }
  if (isNew && chatId) history.replaceState(null, "", `#${chatId}`);
  await loadConversations().catch(() => {});
}

export async function initChat(current: Session): Promise<void> {
  session = current;
  const form = byId<HTMLFormElement>("chat-form");
  const input = byId<HTMLTextAreaElement>("chat-message");
  const status = byId("chat-status");
  const attachments = new Attachments(byId<HTMLInputElement>("chat-files"), byId<HTMLUListElement>("attachment-list"));
  wireVoice(byId<HTMLButtonElement>("record"), byId<HTMLSelectElement>("voice-provider"), input, status);
  byId("new-chat").addEventListener("click", () => startNew());
  input.addEventListener("keydown", (event) => {
    if (event.key === "Enter" && !event.shiftKey && !event.isComposing) {
      event.preventDefault();
      form.requestSubmit();
    }
  });
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    const text = input.value.trim();
    if (!text) {
      say(status, "Write a message first.", "error");
      return;
    }
    const send = byId<HTMLButtonElement>("send");
    // Enter submits the form even while the button is disabled: one message at a time.
    if (send.disabled) return;
    send.disabled = true;
    say(status, "");
    try {
      const { ids, failed } = await attachments.readyIds();
      if (failed.length) {
        say(status, `Not sent: ${failed.join(", ")} could not be uploaded. Remove it and try again.`, "error");
        return;
      }
      const names = attachments.names;
      input.value = "";
      attachments.clear();
      await sendMessage(text, ids, names);
    } catch (error) {
      if (!input.value) input.value = text;
      fail(error);
    } finally {
      send.disabled = false;
    }
  });
  try {
    await Promise.all([loadConversations(), loadModels()]);
    const wanted = location.hash.slice(1);
    if (wanted) await open(wanted);
    else startNew(false);
  } catch (error) {
    fail(error);
  }
}
