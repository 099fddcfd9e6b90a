import { healthChatTool } from "./chat/tool";
import { getAccountTool, getUploadTool } from "./tools/account";
import { getConditionReferenceTool, getConditionTool, searchConditionsTool } from "./tools/conditions";
import {
  deleteChatTool,
  getChatTool,
  listChatsTool,
  listModelsTool,
  shareChatTool,
  updateChatTool,
} from "./tools/conversations";
import {
  deleteHealthProfileTool,
  getHealthProfileTool,
  listSymptomOptionsTool,
  saveHealthProfileTool,
} from "./tools/health";
import { getLabHistoryTool, listLabPanelsTool } from "./tools/labs";
import { searchPapersTool } from "./tools/literature";
import {
  addHealthLogEntryTool,
  createHealthLogTool,
  deleteHealthLogTool,
  exportHealthLogTool,
  getHealthLogTool,
  listHealthLogsTool,
  summarizeHealthLogTool,
  updateHealthLogTool,
} from "./tools/logs";
import {
  getPapersTool,
  listPaperCategoriesTool,
  paperFacetsTool,
  recentPapersTool,
  searchPapersAdvancedTool,
  searchPapersByTitleTool,
} from "./tools/papers";
import { getMedicationLabelSectionsTool, getMedicationNdcsTool, getMedicationReferenceTool } from "./tools/references";
import type { AnyTool } from "./tools/types";

const asAny = (tool: unknown) => tool as AnyTool;

export const TOOLS: AnyTool[] = [
  // papers
  searchPapersByTitleTool,
  searchPapersTool,
  searchPapersAdvancedTool,
  getPapersTool,
  recentPapersTool,
  listPaperCategoriesTool,
  paperFacetsTool,
  // conditions
  getConditionReferenceTool,
  searchConditionsTool,
  getConditionTool,
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
  // lab results
  listLabPanelsTool,
  getLabHistoryTool,
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
