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
    .post("/bytes", ({ body }) => ({ size: (body as ArrayBuffer).byteLength }))
    .get("/search", ({ query }) => query, {
      query: t.Object(
        {
          q: t.String({ minLength: 1 }),
          page: t.Optional(t.Integer({ minimum: 0, default: 0 })),
          limit: t.Optional(t.Integer({ minimum: 1, default: 20 })),
          cursor: t.Optional(t.String({ minLength: 1 })),
        },
        { additionalProperties: false },
      ),
    });
}

const search = (query: string) => guarded().handle(new Request(`http://localhost/search?${query}`));

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

describe("empty query values", () => {
  test("an empty optional value is the parameter left out: its default applies", async () => {
    const blankLimit = await search("q=x&limit=");
    expect(blankLimit.status).toBe(200);
    expect(await blankLimit.json()).toEqual({ q: "x", page: 0, limit: 20 });
    const blankPage = await search("page=&limit=5&q=x&cursor=");
    expect(blankPage.status).toBe(200);
    expect(await blankPage.json()).toEqual({ q: "x", page: 0, limit: 5 });
  });

  test("an empty required value fails as missing, with a detail naming it", async () => {
    const response = await search("q=&limit=5");
    expect(response.status).toBe(400);
    const { error } = (await response.json()) as { error: { code: string; details: unknown[] } };
    expect(error.code).toBe("VALIDATION_FAILED");
    expect(error.details).toContainEqual(expect.objectContaining({ in: "query", path: "/q" }));
  });

  test("values that are not empty are still checked: a bad number, an unknown name, a blank", async () => {
    for (const [query, path] of [
      ["q=x&limit=0", "/limit"],
      ["q=x&cursor=%20&limt=5", "/limt"],
    ] as const) {
      const response = await search(query);
      expect(response.status).toBe(400);
      const { error } = (await response.json()) as { error: { details: unknown[] } };
      expect(error.details).toContainEqual(expect.objectContaining({ in: "query", path }));
    }
    // A space is a value, not an empty one: still refused (it coerces to 0, below the minimum).
    expect((await search("q=x&limit=%20")).status).toBe(400);
  });
});

test("clipErrorText keeps short text and cuts long text with an ellipsis", () => {
  expect(clipErrorText("short")).toBe("short");
  const clipped = clipErrorText("k".repeat(300_000));
  expect(clipped).toHaveLength(300);
  expect(clipped.endsWith("…")).toBe(true);
});
