import { describe, expect, test } from "bun:test";
import { Type as T } from "@sinclair/typebox";
import type { Ctx } from "../../shared/context/ctx";
import { AppError, ERROR_KINDS, type ErrorKind, errorBody } from "../../shared/core/errors";
import { createLogger } from "../../shared/core/log";
import { PLANS } from "../../shared/core/plans";
import { runTool, ToolCrash } from "../../shared/tools/run";
import { defineTool } from "../../shared/tools/types";

/** One rule decides what a message may show: the error table's `expose` column, for REST and both tool adapters. */
const KINDS = Object.keys(ERROR_KINDS) as ErrorKind[];
const SECRET = "connection to 10.0.0.5:5432 refused";

const failing = (kind: ErrorKind) =>
  defineTool({
    name: "failing",
    title: "Fails",
    description: "Throws the error it is given.",
    input: T.Object({}),
    output: T.Object({}),
    annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    scope: "papers:read",
    run: () => {
      throw new AppError(kind, SECRET);
    },
    render: () => "",
  });

const ctx = { plans: PLANS, plan: "pro", accountId: "a", requestId: "req_test", log: createLogger("error") } as Ctx;

describe("the error table's expose column", () => {
  test("every 4xx kind may show its message; INTERNAL may not", () => {
    for (const kind of KINDS) if (ERROR_KINDS[kind].status < 500) expect(ERROR_KINDS[kind].expose).toBe(true);
    expect(ERROR_KINDS.INTERNAL.expose).toBe(false);
  });

  test.each(KINDS)("REST body of %s shows its message only when exposed", (kind) => {
    const { message } = errorBody(new AppError(kind, SECRET), "req_test").error;
    expect(message === SECRET).toBe(ERROR_KINDS[kind].expose);
  });

  test.each(KINDS)("a tool failing with %s is a readable failure only when exposed", async (kind) => {
    const outcome = await runTool(failing(kind), ctx, {}).catch((error) => error);
    if (ERROR_KINDS[kind].expose) expect(outcome).toEqual({ failure: SECRET, kind });
    else expect(outcome).toBeInstanceOf(ToolCrash);
  });

  test("bad arguments are a readable failure naming the field", async () => {
    const tool = defineTool({ ...failing("INTERNAL"), input: T.Object({ q: T.String() }) });
    expect(await runTool(tool as never, ctx, { q: 5 })).toEqual({
      failure: "Invalid arguments for failing: /q: Expected string",
    });
  });
});
