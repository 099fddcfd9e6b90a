import { getConditionReferenceTool } from "./conditions";
import { getHealthProfileTool, listSymptomOptionsTool } from "./health";
import { searchPapersTool } from "./literature";
import { listHealthLogsTool, summarizeHealthLogTool } from "./logs";
import { getMedicationReferenceTool } from "./references";
import type { AnyTool } from "./types";

const asAny = (tool: unknown) => tool as AnyTool;

/**
 * Tools the health assistant may call during a chat turn (server-side): reads only. The offline
 * model (shared/llm/offline/intent.ts) picks among them by name.
 */
export const CHAT_TOOLS: AnyTool[] = [
  getHealthProfileTool,
  listHealthLogsTool,
  summarizeHealthLogTool,
  getMedicationReferenceTool,
  getConditionReferenceTool,
  searchPapersTool,
  listSymptomOptionsTool,
].map(asAny);
