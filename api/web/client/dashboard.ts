import { api, describeError } from "./api";
import { showConnections } from "./connections";
import { busy, byId, copyFrom, formatTime, h, say } from "./dom";
import { initShareLinks } from "./shareLinks";

interface Usage {
  plan: string;
  limit: number;
  used: number;
  remaining: number;
  resetsAt: string | null;
}

interface KeySummary {
  id: string;
  prefix: string;
  createdAt: string;
  lastUsedAt: string | null;
  revokedAt: string | null;
}

interface CreatedKey {
  id: string;
  key: string;
  prefix: string;
  createdAt: string;
}

const KEY_PLACEHOLDER = "<YOUR_API_KEY>";
let mcpTemplate = "";

async function showUsage(): Promise<void> {
  try {
    const usage = await api<Usage>("/api/dashboard/usage");
    byId("usage-plan").textContent = usage.plan;
    byId("usage-used").textContent = `${usage.used.toLocaleString()} of ${usage.limit.toLocaleString()}`;
    byId("usage-remaining").textContent = usage.remaining.toLocaleString();
    // null: nothing was counted in the last hour, so there is nothing to reset.
    byId("usage-resets").textContent = usage.resetsAt ? formatTime(usage.resetsAt) : "nothing used yet";
    const meter = byId<HTMLMeterElement>("usage-meter");
    meter.max = Math.max(usage.limit, 1);
    meter.value = usage.used;
  } catch (error) {
    say(byId("usage-status"), describeError(error), "error");
  }
}

function keyRow(key: KeySummary): HTMLTableRowElement {
  const revoke = h("button", { type: "button", class: "secondary small" }, "Revoke");
  revoke.setAttribute("aria-label", `Revoke key ${key.prefix}`);
  revoke.addEventListener("click", async () => {
    if (!confirm(`Revoke the key ${key.prefix}? Clients using it will get 401.`)) return;
    await busy(revoke, async () => {
      try {
        await api(`/api/dashboard/keys/${encodeURIComponent(key.id)}`, { method: "DELETE" });
        say(byId("keys-status"), `Key ${key.prefix} revoked.`, "success");
        await showKeys();
      } catch (error) {
        say(byId("keys-status"), describeError(error), "error");
      }
    });
  });
  return h(
    "tr",
    { "data-key-id": key.id },
    h("td", {}, h("code", {}, `${key.prefix}`)),
    h("td", {}, formatTime(key.createdAt)),
    h("td", {}, key.lastUsedAt ? formatTime(key.lastUsedAt) : "never"),
    h("td", {}, key.revokedAt ? `revoked ${formatTime(key.revokedAt)}` : "active"),
    h("td", {}, key.revokedAt ? "" : revoke),
  );
}

async function showKeys(): Promise<void> {
  try {
    const { keys } = await api<{ keys: KeySummary[] }>("/api/dashboard/keys");
    const body = byId("keys-table").querySelector("tbody") as HTMLTableSectionElement;
    body.replaceChildren(...keys.map(keyRow));
    if (keys.length === 0) body.append(h("tr", {}, h("td", { colspan: "5" }, "No keys yet.")));
  } catch (error) {
    say(byId("keys-status"), describeError(error), "error");
  }
}

function showMcpConfig(key?: string): void {
  const field = byId<HTMLTextAreaElement>("mcp-config");
  field.value = key ? mcpTemplate.replaceAll(KEY_PLACEHOLDER, key) : mcpTemplate;
  if (key) byId("mcp-key-note").textContent = "It holds the key you just created.";
}

async function loadMcpConfig(): Promise<void> {
  try {
    const { config } = await api<{ url: string; config: unknown }>("/api/dashboard/mcp");
    mcpTemplate = JSON.stringify(config, null, 2);
    showMcpConfig();
  } catch (error) {
    say(byId("copy-status"), describeError(error), "error");
  }
}

export async function initDashboard(): Promise<void> {
  const create = byId<HTMLButtonElement>("create-key");
  create.addEventListener("click", () =>
    busy(create, async () => {
      try {
        const created = await api<CreatedKey>("/api/dashboard/keys", { method: "POST" });
        byId<HTMLInputElement>("new-key-value").value = created.key;
        byId("new-key").hidden = false;
        byId<HTMLInputElement>("new-key-value").select();
        say(byId("keys-status"), "Key created. Copy it now: it is not shown again.", "success");
        showMcpConfig(created.key);
        await showKeys();
      } catch (error) {
        say(byId("keys-status"), describeError(error), "error");
      }
    }),
  );
  for (const button of document.querySelectorAll<HTMLButtonElement>("[data-copy]")) {
    button.addEventListener("click", () =>
      copyFrom(byId<HTMLInputElement>(button.dataset.copy as string), byId("copy-status")),
    );
  }
  await Promise.all([showUsage(), showKeys(), showConnections(), initShareLinks(), loadMcpConfig()]);
}
