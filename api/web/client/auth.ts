import { api, currentSession, describeError, rememberSession, type Session } from "./api";
import { sameSiteDestination } from "./destination";
import { busy, byId, say } from "./dom";

/** Where to go after signing in: a same-origin path from `?next=`, else the dashboard. */
function destination(): string {
  return sameSiteDestination(new URLSearchParams(location.search).get("next"), location.origin);
}

function wire(formId: string, path: string, statusId: string): void {
  const form = byId<HTMLFormElement>(formId);
  const status = byId(statusId);
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    const data = new FormData(form);
    const email = String(data.get("email") ?? "").trim();
    const password = String(data.get("password") ?? "");
    if (!email || !password) {
      say(status, "Enter your email and password.", "error");
      return;
    }
    await busy(form, async () => {
      try {
        say(status, path.endsWith("signup") ? "Creating your account…" : "Signing in…");
        rememberSession(await api<Session>(path, { method: "POST", body: { email, password } }));
        location.assign(destination());
      } catch (error) {
        say(status, describeError(error), "error");
      }
    });
  });
}

export async function initAuth(): Promise<void> {
  wire("signin-form", "/api/auth/signin", "signin-status");
  wire("signup-form", "/api/auth/signup", "signup-status");
  const session = await currentSession().catch(() => null);
  if (session) {
    byId("signed-in-email").textContent = session.account.email;
    byId("signed-in").hidden = false;
  }
}
