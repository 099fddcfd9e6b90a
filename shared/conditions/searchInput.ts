import { type AppError, invalidRequest } from "../core/errors";
import { codePoints } from "../core/text";

/** Condition names as callers send them: `q`, or REST's alias `name`. */
export interface NameInput {
  q?: string;
  name?: string;
}

/** Default and largest number of candidates a search returns. */
export const SEARCH_DEFAULT = 10;

function invalid(path: string, message: string): AppError {
  return invalidRequest([{ in: "query", path, message }]);
}

/** `q` or its alias `name`: one of them, or both with the same value; at least 2 characters (code points) once trimmed. */
export function conditionName(input: NameInput): string {
  const { q, name } = input;
  if (q !== undefined && name !== undefined && q.trim() !== name.trim()) {
    throw invalid("/name", "q and name are the same field; send one, or the same value");
  }
  const given = (q ?? name)?.trim();
  if (given === undefined) throw invalid("/q", "Expected q (or its alias name)");
  if (codePoints(given) < 2)
    throw invalid(q === undefined ? "/name" : "/q", "Expected at least 2 non-blank characters");
  return given;
}
