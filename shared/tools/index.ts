import { getAccountTool, getUploadTool } from "./account";
import {
  deleteChatTool,
  getChatTool,
  healthChatTool,
  listChatsTool,
  listModelsTool,
  shareChatTool,
  updateChatTool,
} from "./chat";
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

/** The MCP catalog: 36 tools, in the order of the README table. */
export const TOOLS: AnyTool[] = [
  // papers
  searchPapersByTitleTool,
  searchPapersTool,
  searchPapersAdvancedTool,
  getPaperTool,
  getPapersTool,
  recentPapersTool,
  listPaperCategoriesTool,
  paperFacetsTool,
  // conditions
  getConditionReferenceTool,
  searchConditionsTool,
  getConditionTool,
  conditionPapersTool,
  // medications
  getMedicationReferenceTool,
  getMedicationLabelSectionsTool,
  getMedicationNdcsTool,
  // health profile
  getHealthProfileTool,
  saveHealthProfileTool,
  deleteHealthProfileTool,
  // health logs
  listHealthLogsTool,
  createHealthLogTool,
  getHealthLogTool,
  updateHealthLogTool,
  deleteHealthLogTool,
  addHealthLogEntryTool,
  summarizeHealthLogTool,
  exportHealthLogTool,
  listSymptomOptionsTool,
  // chat
  healthChatTool,
  listChatsTool,
  getChatTool,
  updateChatTool,
  deleteChatTool,
  shareChatTool,
  listModelsTool,
  // uploads and account
  getUploadTool,
  getAccountTool,
].map(asAny);

export const TOOLS_BY_NAME = new Map(TOOLS.map((tool) => [tool.name, tool]));
