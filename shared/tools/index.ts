import { getAccountTool } from "./account";
import type { AnyTool } from "./types";

/** The tool catalog shared by the MCP server and the chat model. */
export const TOOLS: AnyTool[] = [getAccountTool as unknown as AnyTool];

export const TOOLS_BY_NAME = new Map(TOOLS.map((tool) => [tool.name, tool]));
