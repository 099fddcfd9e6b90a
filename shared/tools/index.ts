import { getAccountTool, getUploadTool } from "./account";
import { conditionPapersTool, getConditionReferenceTool, getConditionTool, searchConditionsTool } from "./conditions";
import { deleteHealthProfileTool, getHealthProfileTool, listSymptomOptionsTool, saveHealthProfileTool } from "./health";
import { searchPapersTool } from "./literature";
import {
  addHealthLogEntryTool,
  createHealthLogTool,
  deleteHealthLogTool,
  exportHealthLogTool,
  getHealthLogTool,
  listHealthLogsTool,
  summarizeHealthLogTool,
  updateHealthLogTool,
} from "./logs";
import {
  getPapersTool,
  getPaperTool,
  listPaperCategoriesTool,
  paperFacetsTool,
  recentPapersTool,
  searchPapersAdvancedTool,
  searchPapersByTitleTool,
} from "./papers";
import { getMedicationLabelSectionsTool, getMedicationNdcsTool, getMedicationReferenceTool } from "./references";
import type { AnyTool } from "./types";

const asAny = (tool: unknown) => tool as AnyTool;

/**
 * Tools the health assistant may call during a chat turn (server-side): reads only. The offline
 * model (shared/chat/offlineIntent.ts) picks among them by name.
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
