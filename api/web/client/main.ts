import { api, requireSession, type Session } from "./api";
import { initAuth } from "./auth";
import { initChat } from "./chat";
import { initDashboard } from "./dashboard";
import { byId } from "./dom";
import { initLabs } from "./labs";
import { initLogs } from "./logs";
import { initProfile } from "./profile";

/** One bundle for every page; `<body data-page>` says which module runs. */
const SIGNED_IN_PAGES: Record<string, (session: Session) => void | Promise<void>> = {
  dashboard: initDashboard,
  profile: initProfile,
  logs: initLogs,
  labs: initLabs,
  chat: initChat,
};

async function start(): Promise<void> {
  const page = document.body.dataset.page ?? "";
  if (page === "auth") return initAuth();
  const init = SIGNED_IN_PAGES[page];
  if (!init) return;
  const session = await requireSession();
  byId("account-email").textContent = session.account.email;
  byId<HTMLButtonElement>("sign-out").addEventListener("click", async () => {
    await api("/api/auth/signout", { method: "POST" }).catch(() => {});
    location.assign("/");
  });
  await init(session);
}

// `data-ready` tells people's tools and the browser tests that the page has loaded its data.
void start().finally(() => {
  document.body.dataset.ready = "true";
});
