import { Elysia } from "elysia";
import type { Deps } from "../../../shared/context/deps";
import { type Mount, V1 } from "../mount";
import { labExportRoutes } from "./labExport";
import { labImportRoutes } from "./labImport";
import { labRoutes } from "./labs";
import { healthLogReportRoutes } from "./logReports";
import { healthLogRoutes } from "./logs";
import { profileRoutes } from "./profile";
import { recordRoutes } from "./records";
import { shareLinkRoutes } from "./shareLinks";
import { symptomRoutes } from "./symptoms";

/**
 * The health data routes (symptom options, profile, logs, labs, records, share links), one plugin so the API and
 * the website mount the same set; also keeps the app's chain within the depth TypeScript follows.
 */
export function healthDataRoutes(deps: Deps, mount: Mount = V1) {
  return new Elysia({ name: `routes/health/data${mount.suffix}` })
    .use(symptomRoutes(deps, mount))
    .use(profileRoutes(deps, mount))
    .use(healthLogRoutes(deps, mount))
    .use(healthLogReportRoutes(deps, mount))
    .use(labRoutes(deps, mount))
    .use(labImportRoutes(deps, mount))
    .use(recordRoutes(deps, mount))
    .use(shareLinkRoutes(deps, mount))
    .use(labExportRoutes(deps, mount));
}
