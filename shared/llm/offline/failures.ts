import type { Done } from "./plan";

/**
 * A tool call that failed, as one plain sentence: the one place the offline model turns a tool's
 * error into words. The error text itself ("Error: RxNav (RxNorm) did not answer…", a validation
 * message, a stack) is read, never shown: it says only which reference could not be reached or
 * that nothing was found.
 */
const WHERE: Record<string, string> = {
  get_medication_reference: "the medication reference (RxNorm and FDA labels)",
  get_condition_reference: "the condition reference (MONDO)",
  search_papers: "the paper index",
  get_health_profile: "your health profile",
  list_health_logs: "your health logs",
  summarize_health_log: "your health log",
  add_health_log_entry: "your health log",
  list_symptom_options: "the symptom lists",
  get_lab_history: "your lab results",
  list_lab_panels: "your lab results",
};

/** Errors a retry may fix: an upstream or a store that did not answer (the error table's 502 and 503). */
const UNREACHABLE = /did not answer|unavailable|not available|retry|try again|timed? ?out|failed/i;
/** A scope the connection was not granted: said as it is, with the scope, so the person can reconnect. */
const MISSING_SCOPE = /needs the `([a-z:]+)` scope/;
const NOT_FOUND = /\bno\b[^.]*\b(?:matches|with (?:the )?(?:id|title)|for)\b|not found|not a known/i;

function where(call: Done, error: string): string {
  if (call.toolName === "get_medication_reference") {
    if (/rxnav|rxnorm/i.test(error)) return "the medication reference (RxNorm)";
    if (/openfda|fda/i.test(error)) return "the FDA label reference (openFDA)";
  }
  return WHERE[call.toolName] ?? "that reference";
}

/** What the call asked for, as the person would recognise it: a name, a query. */
function subject(call: Done): string | undefined {
  const value = call.input.name ?? call.input.q ?? call.input.query;
  return typeof value === "string" && value.trim() ? value.trim() : undefined;
}

export function failureSentence(call: Done): string {
  const error = typeof call.output === "string" ? call.output : JSON.stringify(call.output ?? "");
  const place = where(call, error);
  const about = subject(call);
  const scope = MISSING_SCOPE.exec(error)?.[1];
  if (scope) {
    return `I could not use ${place}: this connection was not granted the \`${scope}\` scope; reconnect and allow it.`;
  }
  if (UNREACHABLE.test(error)) return `I could not reach ${place} just now; try again in a minute.`;
  if (NOT_FOUND.test(error)) return `I found nothing${about ? ` for "${about}"` : ""} in ${place}.`;
  return `I could not use ${place}${about ? ` for "${about}"` : ""} this time.`;
}
