import type { Resource } from "@modelcontextprotocol/server";
import { isAuthorized } from "../../shared/auth/authorize";
import type { Scope } from "../../shared/auth/scopes";
import type { Ctx } from "../../shared/context/ctx";
import { listChats } from "../../shared/conversations/chats";
import { codePoints } from "../../shared/core/text";
import { listLogs } from "../../shared/health/logs";
import { listPanels } from "../../shared/labs/panels";
import { JSON_TYPE } from "./contents";
import { answered, invalidParams } from "./errors";
import { listRecordResources } from "./healthRecordResources";
import { resourceUri } from "./resources";

/**
 * resources/list: the caller's own records as concrete resources, in sections (the imported health
 * record: its summary, its FHIR form and each import; health logs; lab panels; health chats; each
 * newest first), PAGE_SIZE per page. The cursor names a section and that section's own keyset
 * cursor, so paging visits every record once while others are added. A section the token's scopes
 * or the plan do not cover is left out, not refused; without consent the health sections are empty,
 * as their list tools are. Papers are not listed: they are not the caller's.
 */
const PAGE_SIZE = 50;

interface Section {
  scope: Scope;
  list(ctx: Ctx, limit: number, cursor: string | undefined): Promise<{ resources: Resource[]; next: string | null }>;
}

const day = (timestamp: string) => timestamp.slice(0, 10);

const SECTIONS: Section[] = [
  { scope: "health:read", list: listRecordResources },
  {
    scope: "health:read",
    list: async (ctx, limit, cursor) => {
      const page = await listLogs(ctx, { limit, cursor });
      const resources = page.trackers.map((log) => ({
        uri: resourceUri("health-log", log.id),
        name: log.title,
        title: `Health log: ${log.title}`,
        mimeType: JSON_TYPE,
        description: `${log.kind} log, ${log.status}, ${log.entryCount} entries, started ${day(log.startedAt)}.`,
      }));
      return { resources, next: page.next_cursor };
    },
  },
  {
    scope: "health:read",
    list: async (ctx, limit, cursor) => {
      const page = await listPanels(ctx, { limit, cursor });
      const resources = page.panels.map((panel) => {
        const name = `Lab panel ${day(panel.collectedAt)}${panel.lab ? `, ${panel.lab}` : ""}`;
        const flagged = panel.results.filter((result) => result.flag !== null && result.flag !== "normal").length;
        return {
          uri: resourceUri("lab-panel", panel.id),
          name,
          title: name,
          mimeType: JSON_TYPE,
          description: `${panel.results.length} results (${flagged} outside the range or abnormal), collected ${day(panel.collectedAt)}.`,
        };
      });
      return { resources, next: page.next_cursor };
    },
  },
  {
    scope: "chat",
    list: async (ctx, limit, cursor) => {
      const page = await listChats(ctx, { surface: "health", limit, cursor });
      const resources = page.chats.map((chat) => ({
        uri: resourceUri("chat", chat.id),
        name: chat.title,
        title: `Chat: ${chat.title}`,
        mimeType: JSON_TYPE,
        description: `Health chat, last active ${day(chat.updatedAt)}${chat.archived ? " (archived)" : ""}.`,
      }));
      return { resources, next: page.next_cursor };
    },
  },
];

interface Position {
  section: number;
  inner?: string;
}

const encode = (position: Position) => Buffer.from(JSON.stringify(position)).toString("base64url");

function decode(cursor: string): Position {
  try {
    const position = JSON.parse(Buffer.from(cursor, "base64url").toString()) as Partial<Position>;
    const { section, inner } = position;
    if (
      Number.isInteger(section) &&
      (section as number) >= 0 &&
      (section as number) < SECTIONS.length &&
      (inner === undefined || (typeof inner === "string" && codePoints(inner) <= 200))
    ) {
      return { section: section as number, ...(inner === undefined ? {} : { inner }) };
    }
  } catch {
    // Not JSON: refused below like any other cursor this server did not issue.
  }
  throw invalidParams("Not a cursor this server returned: pass nextCursor as it came.");
}

export function listResources(
  ctx: Ctx,
  cursor: string | undefined,
): Promise<{ resources: Resource[]; nextCursor?: string }> {
  return answered(ctx, "resources/list", async () => {
    let position: Position = cursor === undefined ? { section: 0 } : decode(cursor);
    const resources: Resource[] = [];
    while (position.section < SECTIONS.length && resources.length < PAGE_SIZE) {
      const section = SECTIONS[position.section] as Section;
      // Every section needs the health plan: the health data as its tools do, chats as get_chat.
      if (!(await isAuthorized(ctx, { scope: section.scope, feature: "health" }))) {
        position = { section: position.section + 1 };
        continue;
      }
      const page = await section.list(ctx, PAGE_SIZE - resources.length, position.inner);
      resources.push(...page.resources);
      position = page.next ? { section: position.section, inner: page.next } : { section: position.section + 1 };
    }
    return position.section < SECTIONS.length ? { resources, nextCursor: encode(position) } : { resources };
  });
}
