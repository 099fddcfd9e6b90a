import type { LanguageModel } from "ai";
import { AppError } from "../errors";
import type { ModelEntry } from "./models";
import { createOfflineModel } from "./offlineModel";

/** The AI SDK model behind a catalog entry. Providers other than the offline model are configured per deployment. */
export function languageModelFor(entry: ModelEntry): LanguageModel {
  if (entry.provider === "offline") return createOfflineModel();
  throw new AppError("ASSISTANT_FAILED", `The ${entry.provider} provider is not configured on this server.`);
}
