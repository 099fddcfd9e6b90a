import { api, describeError } from "./api";
import { busy, byId, copyFrom, formatTime, h, say } from "./dom";

/**
 * The dashboard's share links: read-only links to the health record for a doctor. The list (label,
 * created, expires, status, opens, last opened) with Revoke, and a form that creates one and shows
 * its URL once with a copy button.
 */
interface ShareLink {
  id: string;
  label: string | null;
  status: "active" | "expired" | "revoked";
  createdAt: string;
  expiresAt: string;
  revokedAt: string | null;
  opens: number;
  lastOpenedAt: string | null;
}

interface CreatedShareLink extends ShareLink {
  url: string;
}

const LINKS = "/api/health/share-links";
const status = () => byId("share-status");

function statusText(link: ShareLink): string {
  if (link.status === "revoked") return `revoked ${formatTime(link.revokedAt)}`;
  return link.status;
}

function linkRow(link: ShareLink): HTMLTableRowElement {
  const name = link.label ?? "Unlabelled link";
  const revoke = h("button", { type: "button", class: "secondary small" }, "Revoke");
  revoke.setAttribute("aria-label", `Revoke share link ${name}`);
  revoke.addEventListener("click", async () => {
    if (!confirm(`Revoke the share link "${name}"? It stops working at once.`)) return;
    await busy(revoke, async () => {
      try {
        await api(`${LINKS}/${encodeURIComponent(link.id)}`, { method: "DELETE" });
        await showShareLinks();
        say(status(), `Share link "${name}" revoked.`, "success");
      } catch (error) {
        say(status(), describeError(error), "error");
      }
    });
  });
  return h(
    "tr",
    { "data-share-link-id": link.id, "data-status": link.status },
    h("td", {}, name),
    h("td", {}, formatTime(link.createdAt)),
    h("td", {}, formatTime(link.expiresAt)),
    h("td", {}, statusText(link)),
    h("td", {}, String(link.opens)),
    h("td", {}, link.lastOpenedAt ? formatTime(link.lastOpenedAt) : "never"),
    h("td", {}, link.status === "active" ? revoke : ""),
  );
}

export async function showShareLinks(): Promise<void> {
  try {
    const { links } = await api<{ links: ShareLink[] }>(LINKS);
    const body = byId("share-table").querySelector("tbody") as HTMLTableSectionElement;
    body.replaceChildren(...links.map(linkRow));
    if (links.length === 0) body.append(h("tr", {}, h("td", { colspan: "7" }, "No share links yet.")));
  } catch (error) {
    say(status(), describeError(error), "error");
  }
}

async function createShareLink(form: HTMLFormElement): Promise<void> {
  const label = byId<HTMLInputElement>("share-label").value.trim();
  const days = Number(byId<HTMLInputElement>("share-days").value);
  try {
    const created = await api<CreatedShareLink>(LINKS, {
      method: "POST",
      body: { ...(label ? { label } : {}), expiresInDays: days },
    });
    const field = byId<HTMLInputElement>("new-share-url");
    field.value = created.url;
    byId("new-share").hidden = false;
    field.select();
    form.reset();
    say(status(), "Share link created. Copy it now: it is not shown again.", "success");
    await showShareLinks();
  } catch (error) {
    say(status(), describeError(error), "error");
  }
}

export async function initShareLinks(): Promise<void> {
  const form = byId<HTMLFormElement>("share-form");
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    void busy(form, () => createShareLink(form));
  });
  byId("copy-share-url").addEventListener("click", () => copyFrom(byId<HTMLInputElement>("new-share-url"), status()));
  await showShareLinks();
}
