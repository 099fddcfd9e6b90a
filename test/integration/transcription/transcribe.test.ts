import { afterAll, beforeAll, beforeEach, describe, expect, test } from "bun:test";
import { createApp } from "../../../api/app";
import type { Deps } from "../../../shared/context/deps";
import type { Env } from "../../../shared/core/env";
import { AUDIO_MAX_BYTES } from "../../../shared/transcription/audio";
import { startWorkers, type Workers } from "../../../workers/runner";
import { type SttReplay, startSttReplay } from "../../fixtures/transcription/replayServer";
import { silentWav } from "../../helpers/audio";
import { createTestAccount, errorOf, json, type TestApp } from "../../helpers/http";
import { testDeps } from "../../helpers/infra";

/** An MP3 as the first bytes announce it: an ID3v2 tag, then one MPEG-1 layer III frame header. */
function tinyMp3(): Uint8Array {
  return new Uint8Array([0x49, 0x44, 0x33, 3, 0, 0, 0, 0, 0, 0, 0xff, 0xfb, 0x90, 0x64, ...new Uint8Array(400)]);
}

interface Form {
  audio?: { bytes: Uint8Array; type: string; name?: string };
  fields?: Record<string, string>;
}

function formOf({ audio, fields = {} }: Form): FormData {
  const form = new FormData();
  if (audio) form.append("audio", new Blob([audio.bytes], { type: audio.type }), audio.name ?? "note.bin");
  for (const [name, value] of Object.entries(fields)) form.append(name, value);
  return form;
}

const KEY = { ELEVENLABS_API_KEY: "xi-test-key", ADDIS_API_KEY: "sk_addis_test" };

let base: Deps;
let deps: Deps;
let app: TestApp;
let key: string;
let workers: Workers;
let replay: SttReplay;

function depsWith(env: Partial<Env>): Deps {
  return { ...base, env: { ...base.env, ...env } };
}

/** `apiKey: null` sends no key. */
function post(target: TestApp, form: FormData | string, apiKey: string | null = key, headers = {}) {
  const request = new Request("http://localhost/api/v1/transcribe", {
    method: "POST",
    headers: { ...(apiKey ? { authorization: `Bearer ${apiKey}` } : {}), ...headers },
    body: form,
  });
  return target.handle(request);
}

const wav = () => ({ bytes: silentWav(), type: "audio/wav", name: "note.wav" });

beforeAll(async () => {
  replay = startSttReplay();
  base = await testDeps();
  deps = depsWith({
    ...KEY,
    ELEVENLABS_BASE_URL: replay.url,
    ADDIS_BASE_URL: replay.url,
    TRANSCRIPTION_TIMEOUT_MS: 2000,
    TRANSCRIPTION_WAIT_MS: 15_000,
  });
  workers = await startWorkers(deps, { queues: ["transcription"] });
  app = createApp(deps);
  key = (await createTestAccount(deps, "go")).apiKey;
});

afterAll(async () => {
  await workers?.close();
  await replay?.stop();
});

beforeEach(() => {
  replay.mode = "normal";
  replay.requests.length = 0;
});

async function parkedAudioKeys(): Promise<string[]> {
  return deps.redis.keys(`${deps.env.REDIS_PREFIX}:stt:*`);
}

describe("POST /api/v1/transcribe: providers", () => {
  test("ElevenLabs: the transcript, detected language and timing; the provider got key, model and file", async () => {
    const audio = silentWav();
    const response = await post(
      app,
      formOf({ audio: { bytes: audio, type: "audio/wav" }, fields: { provider: "elevenlabs" } }),
    );
    expect(response.status).toBe(200);
    expect(await json(response)).toEqual({
      text: "I have had a headache since yesterday morning.",
      provider: "elevenlabs",
      language: "eng",
      durationSeconds: 2.619,
    });
    expect(replay.requests).toHaveLength(1);
    const sent = replay.requests[0];
    expect(sent?.path).toBe("/v1/speech-to-text");
    expect(sent?.headers.get("xi-api-key")).toBe("xi-test-key");
    expect(sent?.fields).toEqual({ model_id: "scribe_v1", tag_audio_events: "false" });
    expect(sent?.file?.field).toBe("file");
    expect(sent?.file?.declaredType).toBe("audio/wav");
    expect(sent?.file?.bytes).toEqual(audio);
    expect(await parkedAudioKeys()).toEqual([]);
  });

  test("ElevenLabs: a language hint is passed on as language_code", async () => {
    const response = await post(app, formOf({ audio: wav(), fields: { provider: "elevenlabs", language: "en" } }));
    expect(response.status).toBe(200);
    expect(replay.requests[0]?.fields.language_code).toBe("en");
  });

  test("Addis AI: the transcription in the language asked for; the provider got key, request_data and audio", async () => {
    const audio = tinyMp3();
    const response = await post(
      app,
      formOf({ audio: { bytes: audio, type: "audio/mpeg", name: "voice.mp3" }, fields: { provider: "addis" } }),
    );
    expect(response.status).toBe(200);
    expect(await json(response)).toEqual({ text: "ከትናንት ጠዋት ጀምሮ ራስ ምታት አለብኝ።", provider: "addis", language: "am" });
    const sent = replay.requests[0];
    expect(sent?.path).toBe("/api/v2/stt");
    expect(sent?.headers.get("x-api-key")).toBe("sk_addis_test");
    expect(JSON.parse(sent?.fields.request_data ?? "null")).toEqual({ language_code: "am" });
    expect(sent?.file).toMatchObject({ field: "audio", declaredType: "audio/mpeg", bytes: audio });
    expect(await parkedAudioKeys()).toEqual([]);
  });

  test("Addis AI: Afan Oromo is asked for with om; a language Addis AI does not transcribe is 400", async () => {
    const om = await post(app, formOf({ audio: wav(), fields: { provider: "addis", language: "om" } }));
    expect(await json(om)).toMatchObject({ provider: "addis", language: "om" });
    expect(JSON.parse(replay.requests[0]?.fields.request_data ?? "null")).toEqual({ language_code: "om" });
    const en = await post(app, formOf({ audio: wav(), fields: { provider: "addis", language: "en" } }));
    expect(en.status).toBe(400);
    expect((await errorOf(en)).code).toBe("BAD_REQUEST");
  });
});

describe("POST /api/v1/transcribe: failures", () => {
  test("a provider without its key: 503 naming the missing setting, nothing sent", async () => {
    const unconfigured = createApp(depsWith({ ELEVENLABS_API_KEY: undefined, ADDIS_API_KEY: undefined }));
    for (const [provider, setting] of [
      ["elevenlabs", "ELEVENLABS_API_KEY"],
      ["addis", "ADDIS_API_KEY"],
    ]) {
      const response = await post(unconfigured, formOf({ audio: wav(), fields: { provider: provider as string } }));
      expect(response.status).toBe(503);
      const error = await errorOf(response);
      expect(error.code).toBe("UNAVAILABLE");
      expect(error.message).toContain(`${setting} is not set`);
    }
    expect(replay.requests).toHaveLength(0);
  });

  test("provider 5xx: retried three times, then 502 naming the provider; the audio is deleted", async () => {
    replay.mode = "fail";
    const response = await post(app, formOf({ audio: wav(), fields: { provider: "elevenlabs" } }));
    expect(response.status).toBe(502);
    const error = await errorOf(response);
    expect(error.code).toBe("UPSTREAM_FAILED");
    expect(error.message).toContain("ElevenLabs");
    expect(replay.requests).toHaveLength(3);
    expect(await parkedAudioKeys()).toEqual([]);
  });

  test("a key the provider refuses: 502 naming the provider after one call (no retry can help)", async () => {
    replay.mode = "unauthorized";
    const response = await post(app, formOf({ audio: wav(), fields: { provider: "addis" } }));
    expect(response.status).toBe(502);
    expect((await errorOf(response)).message).toContain("Addis AI");
    expect(replay.requests).toHaveLength(1);
  });
});

describe("POST /api/v1/transcribe: validation", () => {
  const expectError = async (response: Response, status: number, code: string) => {
    expect(response.status).toBe(status);
    expect((await errorOf(response)).code).toBe(code);
  };

  test("a type outside the allow-list is 415, whatever the bytes", async () => {
    const text = formOf({ audio: { bytes: silentWav(), type: "text/plain" }, fields: { provider: "elevenlabs" } });
    await expectError(await post(app, text), 415, "UNSUPPORTED_MEDIA_TYPE");
    const video = formOf({ audio: { bytes: silentWav(), type: "video/mp4" }, fields: { provider: "elevenlabs" } });
    await expectError(await post(app, video), 415, "UNSUPPORTED_MEDIA_TYPE");
  });

  test("bytes that lie about their type are 415 (the type comes from the part header, not the file name)", async () => {
    const pdf = new TextEncoder().encode("%PDF-1.7 not audio at all");
    const lying = formOf({ audio: { bytes: pdf, type: "audio/mpeg", name: "x.mp3" }, fields: { provider: "addis" } });
    const response = await post(app, lying);
    expect(response.status).toBe(415);
    expect((await errorOf(response)).message).toContain("not a recognised audio file");
    // WAV bytes named .wav but declared as MP3: the declared type is what is checked.
    const mislabelled = formOf({
      audio: { bytes: silentWav(), type: "audio/mpeg", name: "x.wav" },
      fields: { provider: "addis" },
    });
    await expectError(await post(app, mislabelled), 415, "UNSUPPORTED_MEDIA_TYPE");
    expect(replay.requests).toHaveLength(0);
  });

  test("audio over 25 MiB is 413; exactly 25 MiB is accepted", async () => {
    const big = new Uint8Array(AUDIO_MAX_BYTES + 1);
    big.set(silentWav(0.01));
    const tooLarge = formOf({ audio: { bytes: big, type: "audio/wav" }, fields: { provider: "elevenlabs" } });
    await expectError(await post(app, tooLarge), 413, "PAYLOAD_TOO_LARGE");
    const limit = formOf({
      audio: { bytes: big.subarray(0, AUDIO_MAX_BYTES), type: "audio/wav" },
      fields: { provider: "elevenlabs" },
    });
    expect((await post(app, limit)).status).toBe(200);
    expect(replay.requests[0]?.file?.bytes.length).toBe(AUDIO_MAX_BYTES);
  });

  test("a declared body larger than the route's limit is 413 before the key is checked", async () => {
    const response = await post(app, formOf({ audio: wav(), fields: { provider: "addis" } }), null, {
      "content-length": String(AUDIO_MAX_BYTES + 2 * 1_048_576),
    });
    await expectError(response, 413, "PAYLOAD_TOO_LARGE");
  });

  test("missing audio, missing or unknown provider, an unknown field, an empty file: 400", async () => {
    await expectError(await post(app, formOf({ fields: { provider: "addis" } })), 400, "VALIDATION_FAILED");
    await expectError(await post(app, formOf({ audio: wav() })), 400, "VALIDATION_FAILED");
    await expectError(
      await post(app, formOf({ audio: wav(), fields: { provider: "whisper" } })),
      400,
      "VALIDATION_FAILED",
    );
    const extra = formOf({ audio: wav(), fields: { provider: "addis", userId: "u1" } });
    await expectError(await post(app, extra), 400, "VALIDATION_FAILED");
    const empty = formOf({ audio: { bytes: new Uint8Array(0), type: "audio/wav" }, fields: { provider: "addis" } });
    await expectError(await post(app, empty), 400, "BAD_REQUEST");
    expect(replay.requests).toHaveLength(0);
  });

  test("a body that is not multipart/form-data is 415", async () => {
    const response = await post(app, JSON.stringify({ provider: "addis" }), key, {
      "content-type": "application/json",
    });
    await expectError(response, 415, "UNSUPPORTED_MEDIA_TYPE");
  });
});

describe("POST /api/v1/transcribe: access", () => {
  test("free plan: 403 PLAN_REQUIRED; no key: 401", async () => {
    const free = await createTestAccount(deps, "free");
    const form = () => formOf({ audio: wav(), fields: { provider: "elevenlabs" } });
    const forbidden = await post(app, form(), free.apiKey);
    expect(forbidden.status).toBe(403);
    expect((await errorOf(forbidden)).code).toBe("PLAN_REQUIRED");
    expect((await post(app, form(), null)).status).toBe(401);
    expect(replay.requests).toHaveLength(0);
  });

  test("other routes keep their 1 MiB body limit, before the key check", async () => {
    const response = await app.handle(
      new Request("http://localhost/api/v1/papers/search", {
        method: "POST",
        headers: { "content-type": "application/json", "content-length": String(1_048_577) },
        body: "{}",
      }),
    );
    expect(response.status).toBe(413);
    expect((await errorOf(response)).code).toBe("PAYLOAD_TOO_LARGE");
  });

  test("the OpenAPI document describes the multipart form and the response", async () => {
    interface Operation {
      requestBody?: { content?: Record<string, { schema?: { properties?: Record<string, unknown> } }> };
      responses?: Record<string, unknown>;
    }
    const doc = await json<{ paths: Record<string, { post?: Operation }> }>(
      await app.handle(new Request("http://localhost/openapi.json")),
    );
    const operation = doc.paths["/api/v1/transcribe"]?.post;
    expect(operation).toBeDefined();
    const schema = operation?.requestBody?.content?.["multipart/form-data"]?.schema;
    expect(Object.keys(schema?.properties ?? {}).sort()).toEqual(["audio", "language", "provider"]);
    expect(operation?.responses?.["200"]).toBeDefined();
  });
});
