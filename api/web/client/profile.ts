import { ApiError, api, describeError, type Session } from "./api";
import { busy, byId, formatTime, say } from "./dom";
import type { RecordSections } from "./recordSections";
import { initRecords, showSections } from "./records";

interface Profile extends Partial<RecordSections> {
  consentGiven: boolean;
  conditions: string[];
  medications: string[];
  consentedAt: string | null;
  updatedAt: string | null;
}

/** Shows the page's "needs the Go plan" notice when the API says so; true when it did. */
export function showPlanNotice(error: unknown, session: Session): boolean {
  if (!(error instanceof ApiError && error.code === "PLAN_REQUIRED")) return false;
  for (const notice of document.querySelectorAll<HTMLElement>(".plan-required")) {
    notice.hidden = false;
    const name = notice.querySelector(".plan-name");
    if (name) name.textContent = session.account.plan;
  }
  return true;
}

/** Shows the page's "save the profile with consent first" notices. */
export function showConsentNotice(): void {
  for (const notice of document.querySelectorAll<HTMLElement>(".consent-required")) notice.hidden = false;
}

/** An API failure in words, with the plan and consent notices when they are the reason. */
export function showApiError(session: Session, error: unknown, status: HTMLElement, prefix = ""): void {
  if (showPlanNotice(error, session)) return;
  if (error instanceof ApiError && error.code === "CONSENT_REQUIRED") showConsentNotice();
  say(status, `${prefix}${describeError(error)}`, "error");
}

const lines = (text: string) =>
  text
    .split("\n")
    .map((line) => line.trim())
    .filter(Boolean);

function show(profile: Profile): void {
  byId<HTMLInputElement>("consent").checked = profile.consentGiven;
  byId<HTMLTextAreaElement>("conditions").value = profile.conditions.join("\n");
  byId<HTMLTextAreaElement>("medications").value = profile.medications.join("\n");
  byId("consent-state").textContent = profile.consentGiven
    ? `Consent given ${formatTime(profile.consentedAt)}; last saved ${formatTime(profile.updatedAt)}.`
    : "No consent given yet.";
  showSections(profile);
}

/** A record import's failure: on this page, consent is the box above. */
function recordError(session: Session) {
  return (error: unknown, status: HTMLElement, prefix: string) => {
    if (error instanceof ApiError && error.code === "CONSENT_REQUIRED") {
      say(status, `${prefix}tick the consent box above and save the profile first.`, "error");
      return;
    }
    showApiError(session, error, status, prefix);
  };
}

export async function initProfile(session: Session): Promise<void> {
  const records = initRecords(recordError(session));
  const form = byId<HTMLFormElement>("profile-form");
  const status = byId("profile-status");
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    if (!byId<HTMLInputElement>("consent").checked) {
      say(status, "Tick the consent box to save your profile.", "error");
      byId("consent").focus();
      return;
    }
    void busy(form, async () => {
      try {
        const saved = await api<Profile>("/api/health/profile", {
          method: "POST",
          body: {
            consentGiven: true,
            conditions: lines(byId<HTMLTextAreaElement>("conditions").value),
            medications: lines(byId<HTMLTextAreaElement>("medications").value),
          },
        });
        show(saved);
        say(status, "Profile saved.", "success");
        await records.refresh();
      } catch (error) {
        if (!showPlanNotice(error, session)) say(status, describeError(error), "error");
      }
    });
  });
  const remove = byId<HTMLButtonElement>("delete-profile");
  remove.addEventListener("click", () => {
    if (!confirm("Delete your profile, every health log, your lab panels and imported records? This cannot be undone."))
      return;
    void busy(remove, async () => {
      try {
        const result = await api<{ trackersDeleted: number; recordImportsDeleted: number }>(
          "/api/health/profile?confirm=delete",
          { method: "DELETE" },
        );
        const removed = `${result.trackersDeleted} log(s) and ${result.recordImportsDeleted} imported record(s) removed`;
        say(byId("delete-status"), `Deleted; ${removed}. Consent withdrawn.`, "success");
        show({ consentGiven: false, conditions: [], medications: [], consentedAt: null, updatedAt: null });
        await records.refresh();
      } catch (error) {
        say(byId("delete-status"), describeError(error), "error");
      }
    });
  });
  const listed = records.list();
  try {
    show(await api<Profile>("/api/health/profile"));
    // Editable once the saved profile is shown, so a late answer cannot overwrite what was typed.
    byId<HTMLFieldSetElement>("profile-fields").disabled = false;
  } catch (error) {
    if (!showPlanNotice(error, session)) say(status, describeError(error), "error");
  }
  await listed;
}
