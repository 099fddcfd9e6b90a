import { Type as T } from "@sinclair/typebox";
import { authorize } from "../../shared/auth/authorize";
import type { Ctx } from "../../shared/context/ctx";
import { Text } from "../../shared/core/text";
import { findLogByIdOrTitle } from "../../shared/health/logNames";
import { listLogs } from "../../shared/health/logs";
import { getProfile } from "../../shared/health/profile";
import type { Profile } from "../../shared/health/schemas";
import { listPanels } from "../../shared/labs/panels";
import { flaggedIn } from "../../shared/tools/labTrend";
import { jsonContents } from "./contents";
import { bullets, day, definePrompt, userResource, userText } from "./promptKit";
import { readHealthLog, resourceUri } from "./resources";

/** Logs and lab panels a visit prompt embeds when no log is named: the newest, as a doctor reads them. */
const VISIT_LOGS = 3;
const VISIT_PANELS = 3;

/** The profile, or the consent refusal: these prompts are built from health data. */
export async function consentedProfile(ctx: Ctx, prompt: string): Promise<Profile> {
  await authorize(ctx, {
    consent: `${prompt} reads your health profile and records, which need consent: save the profile with consentGiven: true (save_health_profile) first.`,
  });
  return getProfile(ctx);
}

const list = (items: readonly string[]) => items.join(", ") || "none recorded";

type VisitLog = Awaited<ReturnType<typeof readHealthLog>>;

/** Questions the data itself raises; the model adds its own after them. */
function visitQuestions(logs: VisitLog[], flagged: ReturnType<typeof flaggedIn>, profile: Profile): string[] {
  const fromLogs = logs.flatMap((log) => {
    const symptoms = log.summary.symptoms.slice(0, 3).map((s) => s.symptom);
    if (symptoms.length === 0) return [];
    const worst = log.summary.severity.max === null ? "" : `, worst severity ${log.summary.severity.max}/10`;
    return [
      `Since ${day(log.startedAt)} I have had ${symptoms.join(", ")} ("${log.title}"${worst}): what could cause this, and what should make me come back sooner?`,
    ];
  });
  const fromLabs = flagged.map(
    (f) =>
      `My ${f.name} was ${f.valueText}${f.unit ? ` ${f.unit}` : ""} (${f.flag}${f.range ? `; range ${f.range}` : ""}) on ${day(f.collectedAt)}: what does it mean, and should it be tested again?`,
  );
  const fromMedications = profile.medications.map(
    (medication) => `Should I keep taking ${medication} as I do, given these symptoms and results?`,
  );
  return [...fromLogs, ...fromLabs, ...fromMedications];
}

export const prepareDoctorVisit = definePrompt({
  name: "prepare_doctor_visit",
  title: "Prepare a doctor's visit",
  description:
    "Your health logs (one, or the 3 newest), your 3 newest lab panels, your profile's conditions and medications, and questions to ask, with instructions to turn them into a one-page visit summary. Needs consent.",
  scopes: ["health:read"],
  feature: "health",
  args: T.Object(
    {
      log: T.Optional(
        Text({
          minLength: 1,
          maxLength: 80,
          pattern: "\\S",
          description: `One health log to focus on, by title or id (completion offers your titles); default: your ${VISIT_LOGS} newest logs.`,
        }),
      ),
    },
    { additionalProperties: false },
  ),
  messages: async (ctx, args) => {
    const profile = await consentedProfile(ctx, "prepare_doctor_visit");
    const named = args.log === undefined ? undefined : await findLogByIdOrTitle(ctx, { ref: args.log });
    const [ids, panels] = await Promise.all([
      named ? [named.id] : listLogs(ctx, { limit: VISIT_LOGS }).then((page) => page.trackers.map((log) => log.id)),
      listPanels(ctx, { limit: VISIT_PANELS }).then((page) => page.panels),
    ]);
    const logs = await Promise.all(ids.map((id) => readHealthLog(ctx, id)));
    const questions = visitQuestions(logs, flaggedIn(panels), profile);
    return {
      description: `A visit summary from ${logs.length} health logs and ${panels.length} lab panels.`,
      messages: [
        userText(
          [
            "Help me prepare for a visit to my doctor, from my records below.",
            "1. Summarize what happened, in time order, in plain words a doctor can read in a minute: symptoms, severity, temperature, what I could not do.",
            "2. List the lab results outside their reference range, with the date and range.",
            "3. List my conditions and medications.",
            "4. End with the questions to ask: mine below first, then any the records suggest.",
            "Do not diagnose; say what the doctor may want to look at.",
            "",
            `My conditions: ${list(profile.conditions)}.`,
            `My medications: ${list(profile.medications)}.`,
            logs.length + panels.length === 0 ? "I have no health logs or lab panels stored." : "",
          ]
            .join("\n")
            .trim(),
        ),
        ...logs.map((log) => userResource(jsonContents(resourceUri("health-log", log.id), log))),
        ...panels.map((panel) => userResource(jsonContents(resourceUri("lab-panel", panel.id), panel))),
        userText(`Questions I want to ask:\n${bullets(questions, "- (none yet: suggest some from the records)")}`),
      ],
    };
  },
});
