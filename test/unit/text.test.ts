import { describe, expect, test } from "bun:test";
import { Type as T } from "@sinclair/typebox";
import { TypeCompiler } from "@sinclair/typebox/compiler";
import { Value } from "@sinclair/typebox/value";
import Ajv2020 from "ajv/dist/2020";
import { Elysia } from "elysia";
import fc from "fast-check";
import { errorHandler } from "../../api/plugins/errors";
import { SignUpSchema } from "../../shared/auth/schemas";
import { codePoints, Text } from "../../shared/core/text";
import { testLog } from "../helpers/infra";

const ajv = new Ajv2020({ strict: false });
const asJson = (schema: unknown) => JSON.parse(JSON.stringify(schema));

describe("Text: lengths in code points, as JSON Schema counts them", () => {
  test("codePoints counts a surrogate pair once and a lone surrogate as one", () => {
    expect(codePoints("")).toBe(0);
    expect(codePoints("abc")).toBe(3);
    expect(codePoints("😀😀")).toBe(2);
    expect(codePoints("a😀b")).toBe(3);
    expect(codePoints("\ud83d")).toBe(1);
    expect(codePoints("\ude00\ud83d")).toBe(2);
  });

  test("TypeBox (compiled and not) and Ajv agree on every string, emoji and lone surrogates included", () => {
    const schema = T.Object({ s: Text({ minLength: 3, maxLength: 5, pattern: "\\S" }) });
    const compiled = TypeCompiler.Compile(schema);
    const validate = ajv.compile(asJson(schema));
    const text = fc.string({ unit: fc.constantFrom("a", " ", "é", "😀", "\ud83d", "𝒳"), maxLength: 12 });
    fc.assert(
      fc.property(text, (s) => {
        const expected = validate({ s });
        return compiled.Check({ s }) === expected && Value.Check(schema, { s }) === expected;
      }),
      { numRuns: 2000 },
    );
  });

  test("the JSON form is a plain string schema", () => {
    expect(asJson(Text({ minLength: 1, maxLength: 9, description: "x" }))).toEqual({
      type: "string",
      minLength: 1,
      maxLength: 9,
      description: "x",
    });
  });

  test("sign-up refuses a nine-emoji password and takes a ten-emoji one; the error names the rule", async () => {
    const app = new Elysia({ normalize: false })
      .use(errorHandler(testLog))
      .post("/signup", () => "ok", { body: SignUpSchema });
    const send = (password: string) =>
      app.handle(
        new Request("http://localhost/signup", {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify({ email: "a@example.com", password }),
        }),
      );
    const short = await send("😀".repeat(9));
    expect(short.status).toBe(400);
    const body = (await short.json()) as { error: { details: { in: string; path: string; message: string }[] } };
    expect(body.error.details).toContainEqual({
      in: "body",
      path: "/password",
      message: "Expected 10 to 256 characters",
    });
    expect((await send("😀".repeat(10))).status).toBe(200);
  });
});
