import { api, describeError } from "./api";
import { h } from "./dom";

/**
 * Chat attachments: each chosen file is uploaded at once (presign → PUT to the signed URL →
 * complete → wait until ready), so it is usually ready by the time the message is sent.
 */

interface Presigned {
  fileId: string;
  uploadUrl: string;
  method: string;
  headers: Record<string, string>;
}

interface UploadStatus {
  fileId: string;
  status: "pending" | "uploaded" | "processing" | "ready" | "failed";
  failureReason?: string | null;
}

interface Attachment {
  name: string;
  done: Promise<string | null>;
  item: HTMLLIElement;
}

const POLL_MS = 500;
const WAIT_LIMIT_MS = 120_000;

/**
 * Uploads one file for the health scope and waits until processing has finished; the ready file's
 * id. Throws an Error whose message a person can read (the API's own errors as ApiError).
 */
export async function uploadFile(file: File, progress: (text: string) => void): Promise<string> {
  progress("uploading…");
  const presigned = await api<Presigned>("/api/uploads/presign", {
    method: "POST",
    body: {
      scope: "health",
      filename: file.name,
      contentType: file.type || "application/octet-stream",
      size: file.size,
    },
  });
  // The signed URL carries its own authorization; send exactly the headers presign returned.
  const put = await fetch(presigned.uploadUrl, { method: presigned.method, headers: presigned.headers, body: file });
  if (!put.ok) throw new Error(`the upload was refused (${put.status})`);
  await api("/api/uploads/complete", { method: "POST", body: { fileId: presigned.fileId } });
  progress("processing…");
  const deadline = Date.now() + WAIT_LIMIT_MS;
  for (;;) {
    const status = await api<UploadStatus>(`/api/uploads/${presigned.fileId}`);
    if (status.status === "ready") return presigned.fileId;
    if (status.status === "failed") throw new Error(status.failureReason ?? "the file could not be read");
    if (Date.now() > deadline) throw new Error("processing is taking too long");
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
  }
}

/** A failed upload's reason: our own sentences as they are, the API's through describeError. */
export function uploadProblem(error: unknown): string {
  return error instanceof Error && !("code" in error) ? error.message : describeError(error);
}

async function upload(file: File, report: (text: string, tone?: string) => void): Promise<string | null> {
  try {
    const fileId = await uploadFile(file, report);
    report("ready", "success");
    return fileId;
  } catch (error) {
    report(`failed: ${uploadProblem(error)}`, "error");
    return null;
  }
}

export class Attachments {
  private items: Attachment[] = [];

  constructor(
    input: HTMLInputElement,
    private readonly list: HTMLUListElement,
  ) {
    input.addEventListener("change", () => {
      for (const file of Array.from(input.files ?? [])) this.add(file);
      input.value = "";
    });
  }

  private add(file: File): void {
    const state = h("span", { class: "state" });
    const remove = h("button", { type: "button", class: "secondary small" }, "Remove");
    remove.setAttribute("aria-label", `Remove ${file.name}`);
    const item = h("li", {}, h("span", {}, file.name), " ", state, " ", remove);
    const attachment: Attachment = {
      name: file.name,
      item,
      done: upload(file, (text, tone) => {
        state.textContent = text;
        if (tone) state.dataset.tone = tone;
      }),
    };
    remove.addEventListener("click", () => {
      this.items = this.items.filter((other) => other !== attachment);
      item.remove();
    });
    this.items.push(attachment);
    this.list.append(item);
  }

  get names(): string[] {
    return this.items.map((item) => item.name);
  }

  /** Waits for every upload; the ids of the ready ones (failed ones stay listed with their reason). */
  async readyIds(): Promise<{ ids: string[]; failed: string[] }> {
    const results = await Promise.all(this.items.map(async (item) => ({ item, id: await item.done })));
    return {
      ids: results.flatMap(({ id }) => (id ? [id] : [])),
      failed: results.flatMap(({ item, id }) => (id ? [] : [item.name])),
    };
  }

  clear(): void {
    this.items = [];
    this.list.replaceChildren();
  }
}
