import { getConditionReferenceTool } from "./conditions";
import { getHealthProfileTool, listSymptomOptionsTool } from "./health";
import { getLabHistoryTool, listLabPanelsTool } from "./labs";
import { searchPapersTool } from "./literature";
import { addHealthLogEntryTool, listHealthLogsTool, summarizeHealthLogTool } from "./logs";
import { getMedicationReferenceTool } from "./references";
import type { AnyTool } from "./types";

const asAny = (tool: unknown) => tool as AnyTool;

/**
 * Tools the health assistant may call during a chat turn (server-side): reads (the caller's profile,
 * logs and lab results, references, papers), and adding an entry to one of the caller's logs
 * ("record a headache at severity 5"). The offline model
 * (shared/llm/offline/plan.ts) picks among them by name.
 */
export const CHAT_TOOLS: AnyTool[] = [
  getHealthProfileTool,
  listHealthLogsTool,
  summarizeHealthLogTool,
  addHealthLogEntryTool,
  listLabPanelsTool,
  getLabHistoryTool,
  getMedicationReferenceTool,
  getConditionReferenceTool,
  searchPapersTool,
  listSymptomOptionsTool,
].map(asAny);
