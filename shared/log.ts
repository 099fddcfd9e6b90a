import type { Env } from "./env";

type Level = Exclude<Env["LOG_LEVEL"], "silent">;
const RANK: Record<Env["LOG_LEVEL"], number> = { debug: 10, info: 20, warn: 30, error: 40, silent: 99 };

export type Fields = Record<string, unknown>;

/** Structured JSON logs, one object per line. Never pass an API key or a health record in `fields`. */
export interface Logger {
  debug(msg: string, fields?: Fields): void;
  info(msg: string, fields?: Fields): void;
  warn(msg: string, fields?: Fields): void;
  error(msg: string, fields?: Fields): void;
  child(fields: Fields): Logger;
}

/**
 * Lines written in one event-loop turn go to stdout in one write: one syscall per line cost ~15%
 * of the API's throughput in the benchmark. A crash can lose at most the current turn's lines.
 */
function bufferedStdout(): (line: string) => void {
  let pending = "";
  const flush = () => {
    const chunk = pending;
    pending = "";
    process.stdout.write(chunk);
  };
  process.on("exit", () => {
    if (pending) process.stdout.write(pending);
  });
  return (line) => {
    if (!pending) setImmediate(flush);
    pending += line;
  };
}

let stdoutWriter: ((line: string) => void) | undefined;

/** One buffer per process, however many loggers write to it. */
function sharedStdout(): (line: string) => void {
  stdoutWriter ??= bufferedStdout();
  return stdoutWriter;
}

export function createLogger(
  level: Env["LOG_LEVEL"],
  base: Fields = {},
  write: (line: string) => void = sharedStdout(),
): Logger {
  const emit = (lvl: Level, msg: string, fields?: Fields) => {
    if (RANK[lvl] < RANK[level]) return;
    write(
      `${JSON.stringify({ time: new Date().toISOString(), level: lvl, msg, ...base, ...fields }, errorReplacer)}\n`,
    );
  };
  return {
    debug: (msg, fields) => emit("debug", msg, fields),
    info: (msg, fields) => emit("info", msg, fields),
    warn: (msg, fields) => emit("warn", msg, fields),
    error: (msg, fields) => emit("error", msg, fields),
    child: (fields) => createLogger(level, { ...base, ...fields }, write),
  };
}

/** Errors serialize to `{name, message, stack, cause}` instead of `{}`. */
function errorReplacer(_key: string, value: unknown): unknown {
  if (value instanceof Error) {
    return { name: value.name, message: value.message, stack: value.stack, cause: value.cause };
  }
  return value;
}
