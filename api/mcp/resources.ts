import type {
  ReadResourceResult,
  ResourceTemplateType as ResourceTemplate,
  TextResourceContents,
} from "@modelcontextprotocol/server";
import type { Feature } from "../../shared/auth/access";
import type { Scope } from "../../shared/auth/scopes";
import type { Ctx } from "../../shared/context/ctx";
import { readChatTranscript } from "../../shared/conversations/chats";
import { clipErrorText } from "../../shared/core/errors";
import { isUuid } from "../../shared/core/formats";
import { codePoints } from "../../shared/core/text";
import { summarizeLog } from "../../shared/health/logReports";
import { getLog } from "../../shared/health/logs";
import { getPanel } from "../../shared/labs/panels";
import { getPaper } from "../../shared/papers/catalog";
import { isArxivId } from "../../shared/papers/ids";
import { JSON_TYPE, jsonContents } from "./contents";
import { answered, authorized, invalidParams, resourceNotFound } from "./errors";
import { isRecordPath, RECORD_IMPORT_TEMPLATE, readRecordPath } from "./healthRecordResources";
import { SCOPE_META } from "./meta";

/**
 * The resource templates: one per kind of record a caller may read by URI, each over the same verb
 * (and so the same ownership, consent and plan rules) as its tool. Another account's id reads as
 * an unknown one: -32002. health-record:// also reads two resources without a variable (its
 * summary and its FHIR form: healthRecordResources.ts). Which kinds are listed as concrete
 * resources: resourceList.ts.
 */
type Scheme = "paper" | "health-log" | "lab-panel" | "chat" | "health-record";

interface ResourceKind {
  template: Omit<ResourceTemplate, "_meta">;
  scope: Scope;
  feature?: Feature;
  /** What an id (or, for health-record://, a path) looks like, for the -32602 a malformed one gets. */
  shape: string;
  isId(id: string): boolean;
  read(ctx: Ctx, id: string, uri: string): Promise<TextResourceContents[]>;
}

/** A log with its entries and its summary (°C): what health-log:// holds. */
export async function readHealthLog(ctx: Ctx, id: string) {
  const [log, summary] = await Promise.all([getLog(ctx, { id }), summarizeLog(ctx, { id, unit: "C" })]);
  return { ...log, summary };
}

const KINDS: Record<Scheme, ResourceKind> = {
  paper: {
    template: {
      uriTemplate: "paper://{arxivId}",
      name: "paper",
      title: "arXiv paper",
      description:
        "A paper of our arXiv index by id, with or without version (paper://0704.0001, paper://hep-th/9901001v2): the record as JSON, then the abstract as plain text.",
      mimeType: JSON_TYPE,
    },
    scope: "papers:read",
    shape: "an arXiv id with or without version (0704.0001, hep-th/9901001v2)",
    isId: isArxivId,
    read: async (ctx, id, uri) => {
      const paper = await getPaper(ctx, { id });
      // Most records of the index have no abstract; the second entry says so rather than being blank.
      const abstract = paper.abstract ?? "[No abstract is held for this paper.]";
      return [jsonContents(uri, paper), { uri, mimeType: "text/plain", text: abstract }];
    },
  },
  "health-log": {
    template: {
      uriTemplate: "health-log://{id}",
      name: "health-log",
      title: "Health log",
      description:
        "One of your symptom logs with all its entries (newest first) and its summary (severity, symptoms, temperature; °C). Needs the Go plan and consent, like get_health_log.",
      mimeType: JSON_TYPE,
    },
    scope: "health:read",
    feature: "health",
    shape: "a log id (a UUID, from resources/list or list_health_logs)",
    isId: isUuid,
    read: async (ctx, id, uri) => [jsonContents(uri, await readHealthLog(ctx, id))],
  },
  "lab-panel": {
    template: {
      uriTemplate: "lab-panel://{id}",
      name: "lab-panel",
      title: "Lab panel",
      description:
        "One of your lab panels with its results (value, unit, reference range, flag). Needs the Go plan and consent, like list_lab_panels.",
      mimeType: JSON_TYPE,
    },
    scope: "health:read",
    feature: "health",
    shape: "a lab panel id (a UUID, from resources/list or list_lab_panels)",
    isId: isUuid,
    read: async (ctx, id, uri) => [jsonContents(uri, await getPanel(ctx, { id }))],
  },
  chat: {
    template: {
      uriTemplate: "chat://{id}",
      name: "chat",
      title: "Health chat transcript",
      description:
        "One of your health chats, oldest message first, as a share link shows it: replies that used your profile, logs or lab results are withheld (reading those needs health:read and their tools).",
      mimeType: JSON_TYPE,
    },
    scope: "chat",
    feature: "health",
    shape: "a chat id (a UUID, from resources/list or list_chats)",
    isId: isUuid,
    read: async (ctx, id, uri) => [jsonContents(uri, await readChatTranscript(ctx, id))],
  },
  "health-record": {
    template: {
      uriTemplate: RECORD_IMPORT_TEMPLATE,
      name: "health-record-import",
      title: "Health record import",
      description:
        "One of your imported health records (FHIR R4 or C-CDA): the file, whom it is about, what was kept and skipped by type, lab panels stored. health-record://summary and health-record://fhir (in resources/list) hold what all imports added and the whole record as FHIR R4. Needs the Go plan and consent, like get_health_profile.",
      mimeType: JSON_TYPE,
    },
    scope: "health:read",
    feature: "health",
    shape: "summary, fhir, or imports/ and an import id (a UUID, from resources/list)",
    isId: isRecordPath,
    read: readRecordPath,
  },
};

/** resources/templates/list, built once. */
export const RESOURCE_TEMPLATES: ResourceTemplate[] = Object.values(KINDS).map((kind) => ({
  ...kind.template,
  _meta: { [SCOPE_META]: kind.scope },
}));

export const TEMPLATE_URIS = new Set(RESOURCE_TEMPLATES.map((template) => template.uriTemplate));

/** The URI of one record; ids are written as stored (an old-style arXiv id keeps its `/`). */
export const resourceUri = (scheme: Scheme, id: string) => `${scheme}://${id}`;

/** The longest URI read: the longest valid one is about 60 characters. */
const MAX_URI = 300;
const URI = /^([a-z][a-z-]*):\/\/(.*)$/s;

const SCHEME_NAMES = Object.keys(KINDS).map((scheme) => `${scheme}://`);
const SCHEMES = `${SCHEME_NAMES.slice(0, -1).join(", ")} and ${SCHEME_NAMES.at(-1)}`;

function parse(uri: string): { scheme: Scheme; kind: ResourceKind; id: string } {
  if (codePoints(uri) > MAX_URI)
    throw invalidParams(`A resource URI of this server has at most ${MAX_URI} characters.`);
  const [, scheme = "", rest = ""] = URI.exec(uri) ?? [];
  if (!Object.hasOwn(KINDS, scheme)) {
    throw resourceNotFound(uri, `this server reads ${SCHEMES} URIs`);
  }
  const kind = KINDS[scheme as Scheme];
  let id: string;
  try {
    // A client that expands the template percent-encodes an old-style arXiv id's `/`.
    id = decodeURIComponent(rest);
  } catch {
    throw invalidParams(`${clipErrorText(uri, 100)} is not a valid URI (bad percent-encoding).`, { uri });
  }
  if (!kind.isId(id)) throw invalidParams(`${scheme}:// takes ${kind.shape}; got ${clipErrorText(id, 80)}.`, { uri });
  return { scheme: scheme as Scheme, kind, id };
}

/**
 * A paper is public metadata that changes only when the index is refreshed: any cache may keep it
 * an hour. Every other resource is the caller's own health record: private, never reused.
 */
const PAPER_CACHE = { ttlMs: 3_600_000, cacheScope: "public" } as const;

/**
 * resources/read: `authorize` (the scope, then the plan), then the verb (which checks consent and
 * ownership). A missing resource is -32602 with `data.uri` (see errors.ts). Cache hints are a
 * 2026-07-28 field: the server's default for this method, private and never reused, covers the
 * health records.
 */
export function readResource(ctx: Ctx, uri: string, modern: boolean): Promise<ReadResourceResult> {
  return answered(
    ctx,
    "resources/read",
    async () => {
      const { scheme, kind, id } = parse(uri);
      await authorized(ctx, { scope: kind.scope, feature: kind.feature }, `Reading ${scheme}:// resources`);
      const contents = await kind.read(ctx, id, uri);
      return modern && scheme === "paper" ? { contents, ...PAPER_CACHE } : { contents };
    },
    { uri },
  );
}
