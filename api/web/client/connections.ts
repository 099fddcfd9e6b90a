import { api, describeError } from "./api";
import { busy, byId, formatTime, h, say } from "./dom";

/** The dashboard's list of applications connected over OAuth, each with a Disconnect button. */
interface Connection {
  id: string;
  clientId: string;
  clientName: string | null;
  redirectHosts: string[];
  scopes: string[];
  connectedAt: string;
  lastTokenAt: string | null;
}

function connectionRow(connection: Connection): HTMLTableRowElement {
  const name = connection.clientName ?? connection.clientId;
  const disconnect = h("button", { type: "button", class: "secondary small" }, "Disconnect");
  disconnect.setAttribute("aria-label", `Disconnect ${name}`);
  disconnect.addEventListener("click", async () => {
    if (!confirm(`Disconnect ${name}? Its tokens stop working at once.`)) return;
    await busy(disconnect, async () => {
      try {
        await api(`/api/dashboard/connections/${encodeURIComponent(connection.id)}`, { method: "DELETE" });
        await showConnections();
        say(byId("connections-status"), `${name} disconnected.`, "success");
      } catch (error) {
        say(byId("connections-status"), describeError(error), "error");
      }
    });
  });
  return h(
    "tr",
    { "data-connection-id": connection.id },
    h("td", {}, name, h("br", {}), h("span", { class: "muted" }, connection.redirectHosts.join(", "))),
    h("td", {}, ...connection.scopes.flatMap((scope, i) => [i > 0 ? " " : "", h("code", {}, scope)])),
    h("td", {}, formatTime(connection.connectedAt)),
    h("td", {}, connection.lastTokenAt ? formatTime(connection.lastTokenAt) : "no live token"),
    h("td", {}, disconnect),
  );
}

export async function showConnections(): Promise<void> {
  try {
    const { connections } = await api<{ connections: Connection[] }>("/api/dashboard/connections");
    const body = byId("connections-table").querySelector("tbody") as HTMLTableSectionElement;
    body.replaceChildren(...connections.map(connectionRow));
    if (connections.length === 0) {
      body.append(h("tr", {}, h("td", { colspan: "5" }, "No applications connected.")));
    }
  } catch (error) {
    say(byId("connections-status"), describeError(error), "error");
  }
}
