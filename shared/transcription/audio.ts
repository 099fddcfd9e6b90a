import { AppError } from "../core/errors";

/** Largest audio file we accept: ElevenLabs takes far more, Addis AI's SDK documents 25 MB, so 25 MiB. */
export const AUDIO_MAX_BYTES = 25 * 1024 * 1024;

type Format = "wav" | "mp3" | "mp4" | "webm" | "ogg" | "flac";

/** Accepted declared types (parameters such as `;codecs=opus` are ignored) and the format each promises. */
export const AUDIO_TYPES: Record<string, Format> = {
  "audio/wav": "wav",
  "audio/x-wav": "wav",
  "audio/wave": "wav",
  "audio/mpeg": "mp3",
  "audio/mp3": "mp3",
  "audio/mp4": "mp4",
  "audio/m4a": "mp4",
  "audio/x-m4a": "mp4",
  "audio/webm": "webm",
  "audio/ogg": "ogg",
  "audio/flac": "flac",
  "audio/x-flac": "flac",
};

const EXTENSIONS: Record<Format, string> = {
  wav: "wav",
  mp3: "mp3",
  mp4: "m4a",
  webm: "webm",
  ogg: "ogg",
  flac: "flac",
};

const ascii = (bytes: Uint8Array, start: number, text: string) =>
  bytes.length >= start + text.length && [...text].every((ch, i) => bytes[start + i] === ch.charCodeAt(0));

/** The container the first bytes announce, or undefined when they match none we accept. */
export function sniffFormat(bytes: Uint8Array): Format | undefined {
  if (ascii(bytes, 0, "RIFF") && ascii(bytes, 8, "WAVE")) return "wav";
  if (ascii(bytes, 0, "fLaC")) return "flac";
  if (ascii(bytes, 0, "OggS")) return "ogg";
  if (ascii(bytes, 4, "ftyp")) return "mp4";
  if (bytes[0] === 0x1a && bytes[1] === 0x45 && bytes[2] === 0xdf && bytes[3] === 0xa3) return "webm";
  // MP3: an ID3v2 tag, or an MPEG audio frame sync (11 set bits).
  if (ascii(bytes, 0, "ID3")) return "mp3";
  if (bytes[0] === 0xff && ((bytes[1] ?? 0) & 0xe0) === 0xe0) return "mp3";
  return undefined;
}

export interface CheckedAudio {
  bytes: Uint8Array;
  contentType: string;
  extension: string;
}

/**
 * Validates an uploaded audio part: size (413), a declared type on the allow-list (415) and bytes
 * that really are that kind of file (415), so a provider never receives something we mislabelled.
 */
export async function checkAudio(file: Blob, declaredType: string): Promise<CheckedAudio> {
  if (file.size === 0) throw new AppError("BAD_REQUEST", "The audio file is empty.");
  if (file.size > AUDIO_MAX_BYTES) {
    throw new AppError("PAYLOAD_TOO_LARGE", `The audio file is larger than ${AUDIO_MAX_BYTES} bytes (25 MiB).`);
  }
  const contentType = declaredType.split(";")[0]?.trim().toLowerCase() ?? "";
  const format = AUDIO_TYPES[contentType];
  if (!format) {
    throw new AppError(
      "UNSUPPORTED_MEDIA_TYPE",
      `The audio part's Content-Type ${JSON.stringify(contentType)} is not accepted; send one of ${Object.keys(AUDIO_TYPES).join(", ")}.`,
    );
  }
  const bytes = new Uint8Array(await file.arrayBuffer());
  const found = sniffFormat(bytes);
  if (found !== format) {
    throw new AppError(
      "UNSUPPORTED_MEDIA_TYPE",
      `The audio is declared as ${contentType} but its bytes are ${found ? `a ${found} file` : "not a recognised audio file"}.`,
    );
  }
  return { bytes, contentType, extension: EXTENSIONS[format] };
}
