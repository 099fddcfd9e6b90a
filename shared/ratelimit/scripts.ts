import { readFileSync } from "node:fs";
import { join } from "node:path";
import type { Redis } from "../core/redis";

/**
 * The Redis side of the rate limiter: the key layout beside an account's log, the log's entry
 * format, and the Lua scripts in ./lua, called with named arguments. A deployed Redis keeps its
 * keys across releases: a change of the layout or the entry format starts every account's window
 * afresh, so it is a release note (docs/operations.md).
 */

/** The log entry standing for `slots` slots taken by one round trip (consume.lua writes the same). */
export function logEntry(slotId: string, slots: number): string {
  return `${slotId}#${slots}`;
}

/** Where the count of a log's slots lives. */
export function slotCountKey(rateKey: string): string {
  return `${rateKey}:n`;
}

/** Set while an account's leases are paused (after a recall). */
export function leasePauseKey(rateKey: string): string {
  return `${rateKey}:paused`;
}

/** Read from this module's folder, so any working directory finds the scripts. */
function lua(name: string): string {
  return readFileSync(join(import.meta.dir, "lua", name), "utf8");
}

/** Lua has no includes: the slot-count helpers are prepended to the scripts that use them. */
const SLOTS_LUA = lua("slots.lua");

/**
 * ioredis runs a defined command by its SHA and, when Redis answers NOSCRIPT (it restarted or its
 * scripts were flushed), sends the script again in full.
 */
const COMMANDS = {
  rateLimitConsume: { numberOfKeys: 4, lua: `${SLOTS_LUA}\n${lua("consume.lua")}` },
  rateLimitHandBack: { numberOfKeys: 2, lua: lua("handBack.lua") },
  rateLimitPeek: { numberOfKeys: 2, lua: `${SLOTS_LUA}\n${lua("peek.lua")}` },
};

type ScriptCommand = (...keysThenArgs: (string | number)[]) => Promise<unknown>;
type WithScripts = Redis & Record<keyof typeof COMMANDS, ScriptCommand>;

const defined = new WeakSet<Redis>();

/** The connection, with the scripts defined on it the first time it is used here. */
function withScripts(redis: Redis): WithScripts {
  if (!defined.has(redis)) {
    for (const [name, definition] of Object.entries(COMMANDS)) redis.defineCommand(name, definition);
    defined.add(redis);
  }
  return redis as WithScripts;
}

/** Lua flags: '1' on, '0' off. */
function flag(on: boolean): string {
  return on ? "1" : "0";
}

export interface ConsumeArgs {
  rateKey: string;
  authVersionKey: string;
  windowMs: number;
  limit: number;
  slotId: string;
  /** The caller's cached auth version, or `*` for any. */
  expectedVersion: string;
  leaseMs: number;
  want: number;
  leaseThreshold: number;
  prefetch: boolean;
  recalled: boolean;
}

/** consume.lua's reply; the outcome is checked by the caller. */
export type ConsumeReply = [
  outcome: string,
  granted: number,
  remaining: number,
  resetMs: number,
  authVersion: string,
  leasesRunning: 0 | 1,
];

/** Runs consume.lua: KEYS and ARGV in the order of its header. */
export async function runConsume(redis: Redis, call: ConsumeArgs): Promise<ConsumeReply> {
  const keys = [call.rateKey, call.authVersionKey, slotCountKey(call.rateKey), leasePauseKey(call.rateKey)];
  const args = [
    call.windowMs,
    call.limit,
    call.slotId,
    call.expectedVersion,
    call.leaseMs,
    call.want,
    call.leaseThreshold,
    flag(call.prefetch),
    flag(call.recalled),
  ];
  return (await withScripts(redis).rateLimitConsume(...keys, ...args)) as ConsumeReply;
}

/** Runs handBack.lua: the lease's entry comes to stand for its `used` slots of `granted`. */
export async function runHandBack(
  redis: Redis,
  rateKey: string,
  slotId: string,
  granted: number,
  used: number,
): Promise<"handed back" | "gone"> {
  const keys = [rateKey, slotCountKey(rateKey)];
  const args = [logEntry(slotId, granted), logEntry(slotId, used), used, granted - used];
  return (await withScripts(redis).rateLimitHandBack(...keys, ...args)) as "handed back" | "gone";
}

/** Runs peek.lua: the window's slots, and when its oldest entry leaves (absent when it is empty). */
export async function runPeek(
  redis: Redis,
  rateKey: string,
  windowMs: number,
): Promise<[used: number, resetMs?: number]> {
  const keys = [rateKey, slotCountKey(rateKey)];
  return (await withScripts(redis).rateLimitPeek(...keys, windowMs)) as [number, number?];
}
