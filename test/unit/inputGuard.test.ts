import { describe, expect, test } from "bun:test";
import { Elysia, t } from "elysia";
import { errorHandler } from "../../api/plugins/errors";
import { inputGuard, MAX_BODY_DEPTH, unstorableText } from "../../api/plugins/inputGuard";
import { clipErrorText } from "../../shared/core/errors";
import { createLogger } from "../../shared/core/log";

const silent = createLogger("silent", {}, () => {});

/** The guard and the error handler around one JSON route and one bytes route. */
function guarded() {
  return new Elysia({ normalize: false })
    .use(errorHandler(silent))
    .use(inputGuard())
    .post("/json", ({ body }) => body, { body: t.Unknown() })
    .post("/bytes", ({ body }) => ({ size: (body as ArrayBuffer).byteLength }));
}

const post = (path: string, body: string | Uint8Array, type = "application/json") =>
  guarded().handle(new Request(`http://localhost${path}`, { method: "POST", headers: { "content-type": type }, body }));

const nested = (depth: number) => `${"[".repeat(depth)}${"]".repeat(depth)}`;

describe("unstorableText", () => {
  test("finds NUL and lone surrogates in values and property names, with a JSON pointer", () => {
    expect(unstorableText({ a: [{ b: "ok" }, { "c/d": "x\u0000" }] })).toEqual({
      path: "/a/1/c~1d",
      message: "Text may not contain the NUL character (U+0000).",
    });
    expect(unstorableText({ list: ["fine", "\ud800"] })?.path).toBe("/list/1");
    expect(unstorableText({ "k\udfff": 1 })).toEqual({
      path: "/",
      message: "A property name must be valid Unicode (it holds a lone surrogate).",
    });
  });

  test("accepts text PostgreSQL can store, and does not look into bytes or files", () => {
    expect(unstorableText({ text: "😀 Ω \t\r\n \u200b \u202e", n: 1, none: null })).toBeUndefined();
    expect(unstorableText({ bytes: new Uint8Array([0, 0xff]), file: new Blob(["\u0000"]) })).toBeUndefined();
  });
});

describe("inputGuard", () => {
  test(`a body nested ${MAX_BODY_DEPTH} levels passes; one level deeper is a 400 before validation`, async () => {
    expect((await post("/json", nested(MAX_BODY_DEPTH))).status).toBe(200);
    expect((await post("/json", nested(MAX_BODY_DEPTH + 1))).status).toBe(400);
    const deeper = await post("/json", nested(100_000));
    expect(deeper.status).toBe(400);
    const { error } = (await deeper.json()) as { error: { code: string; details: unknown[] } };
    expect(error.code).toBe("VALIDATION_FAILED");
    expect(error.details).toEqual([
      { in: "body", path: "/", message: `The body nests deeper than ${MAX_BODY_DEPTH} levels.` },
    ]);
  });

  test("NUL in the query is refused with the parameter's pointer; a bytes body is not walked", async () => {
    const query = await guarded().handle(new Request("http://localhost/json?q=a%00", { method: "POST", body: "1" }));
    expect(((await query.json()) as { error: { details: unknown[] } }).error.details).toEqual([
      { in: "query", path: "/q", message: "Text may not contain the NUL character (U+0000)." },
    ]);
    const bytes = await post("/bytes", new Uint8Array(100_000), "application/octet-stream");
    expect(await bytes.json()).toEqual({ size: 100_000 });
  });
});

test("clipErrorText keeps short text and cuts long text with an ellipsis", () => {
  expect(clipErrorText("short")).toBe("short");
  const clipped = clipErrorText("k".repeat(300_000));
  expect(clipped).toHaveLength(300);
  expect(clipped.endsWith("…")).toBe(true);
});
