import { Elysia } from "elysia";
import type { Deps } from "../../../shared/context/deps";
import { chatsRoutes } from "../chats";
import { chatRoutes } from "../health/chat";
import { healthDataRoutes } from "../health/dataRoutes";
import { modelsRoutes } from "../models";
import { WEBSITE } from "../mount";
import { transcribeRoutes } from "../transcribe";
import { uploadRoutes } from "../uploads";

/**
 * The v1 health surface again under `/api/…` for the website's pages: the same route plugins
 * (handlers, schemas, service verbs), mounted a second time. The admission hook's session step
 * (api/plugins/admission.ts) authenticates these paths, checks CSRF and charges the same hourly
 * limit; the access policy gives them the same plan gate as v1. Papers, conditions, medication and the account stay API-only.
 */
export function websiteMirrorRoutes(deps: Deps) {
  return new Elysia({ name: "routes/website/mirrors" })
    .use(healthDataRoutes(deps, WEBSITE))
    .use(chatRoutes(deps, WEBSITE))
    .use(modelsRoutes(deps, WEBSITE))
    .use(chatsRoutes(deps, WEBSITE))
    .use(uploadRoutes(deps, WEBSITE))
    .use(transcribeRoutes(deps, WEBSITE));
}
