import { getAccountTool } from "./account";
import { getHealthProfileTool, listHealthLogsTool, listSymptomOptionsTool, summarizeHealthLogTool } from "./health";
import { getConditionReferenceTool, searchPapersTool } from "./literature";
import { getMedicationReferenceTool } from "./references";
import type { AnyTool } from "./types";

const asAny = (tool: unknown) => tool as AnyTool;

/** Tools the health assistant may call during a chat turn (server-side). */
export const CHAT_TOOLS: AnyTool[] = [
  getHealthProfileTool,
  listHealthLogsTool,
  summarizeHealthLogTool,
  getMedicationReferenceTool,
  getConditionReferenceTool,
  searchPapersTool,
  listSymptomOptionsTool,
].map(asAny);

/** The tool catalog shared by the MCP server and the chat model. */
export const TOOLS: AnyTool[] = [asAny(getAccountTool), ...CHAT_TOOLS];

export const TOOLS_BY_NAME = new Map(TOOLS.map((tool) => [tool.name, tool]));
