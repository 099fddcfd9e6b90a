import type { LabTable } from "./labTable";

/**
 * What the offline model can say about attachments without seeing them: an image's type, size and
 * pixel dimensions (read from the PNG, JPEG or WebP header), and an attached PDF's or text file's
 * extracted text, quoted with its page numbers.
 */
export interface ImageAttachment {
  filename?: string;
  mediaType: string;
  bytes: number;
  width?: number;
  height?: number;
}

export interface FileAttachment {
  filename: string;
  mediaType: string;
  pages: string[];
}

export interface Attachments {
  images: ImageAttachment[];
  files: FileAttachment[];
  /** Results the service's lab-report parser read from attached PDFs. */
  labTables: LabTable[];
}

type Size = { width: number; height: number };

function pngSize(b: Uint8Array): Size | undefined {
  const view = new DataView(b.buffer, b.byteOffset, b.byteLength);
  if (b.length < 24 || b[0] !== 0x89 || b[1] !== 0x50 || b[2] !== 0x4e || b[3] !== 0x47) return undefined;
  return { width: view.getUint32(16), height: view.getUint32(20) };
}

/** The first start-of-frame marker (SOF0–SOF15 but DHT, JPG and DAC) holds the frame's size. */
function jpegSize(b: Uint8Array): Size | undefined {
  if (b[0] !== 0xff || b[1] !== 0xd8) return undefined;
  const view = new DataView(b.buffer, b.byteOffset, b.byteLength);
  let at = 2;
  while (at + 9 < b.length) {
    if (b[at] !== 0xff) return undefined;
    const marker = b[at + 1] as number;
    const length = view.getUint16(at + 2);
    if (marker >= 0xc0 && marker <= 0xcf && ![0xc4, 0xc8, 0xcc].includes(marker)) {
      return { height: view.getUint16(at + 5), width: view.getUint16(at + 7) };
    }
    at += 2 + length;
  }
  return undefined;
}

function webpSize(b: Uint8Array): Size | undefined {
  const tag = (from: number) => String.fromCharCode(...b.subarray(from, from + 4));
  if (b.length < 30 || tag(0) !== "RIFF" || tag(8) !== "WEBP") return undefined;
  const view = new DataView(b.buffer, b.byteOffset, b.byteLength);
  const chunk = tag(12);
  if (chunk === "VP8 ") return { width: view.getUint16(26, true) & 0x3fff, height: view.getUint16(28, true) & 0x3fff };
  if (chunk === "VP8L") {
    const bits = view.getUint32(21, true);
    return { width: (bits & 0x3fff) + 1, height: ((bits >> 14) & 0x3fff) + 1 };
  }
  if (chunk === "VP8X") {
    const u24 = (from: number) =>
      (b[from] as number) | ((b[from + 1] as number) << 8) | ((b[from + 2] as number) << 16);
    return { width: u24(24) + 1, height: u24(27) + 1 };
  }
  return undefined;
}

export function imageSize(bytes: Uint8Array): Size | undefined {
  return pngSize(bytes) ?? jpegSize(bytes) ?? webpSize(bytes);
}

const kilobytes = (bytes: number) => (bytes < 1024 ? `${bytes} bytes` : `${(bytes / 1024).toFixed(1)} KB`);

export function describeImage(image: ImageAttachment): string {
  const name = image.filename ? `"${image.filename}"` : "an image";
  const size = image.width && image.height ? `, ${image.width} × ${image.height} pixels` : "";
  // Large photos reach models as the service's downscaled JPEG copy.
  const copy =
    image.mediaType === "image/jpeg" && image.filename && !/\.jpe?g$/i.test(image.filename)
      ? " (the downscaled JPEG copy the service keeps for models)"
      : "";
  return `You attached ${name}: ${image.mediaType}${copy}, ${kilobytes(image.bytes)}${size}. I cannot see images: I am not a language model and read no pictures, so I cannot say what it shows. A model that reads images, if this server configures one, or a doctor or pharmacist can.`;
}

/** Attached text quoted with page numbers, each page clipped. */
export function quoteFile(file: FileAttachment, maxPages = 5, perPage = 600): string {
  const lines = [
    `The attached file "${file.filename}" (${file.mediaType}, ${file.pages.length} page${file.pages.length === 1 ? "" : "s"}) says:`,
  ];
  file.pages.slice(0, maxPages).forEach((text, i) => {
    const clean = text.replace(/\s+/g, " ").trim();
    lines.push(`- page ${i + 1}: "${clean.length > perPage ? `${clean.slice(0, perPage)}…` : clean || "(no text)"}"`);
  });
  if (file.pages.length > maxPages) lines.push(`(${file.pages.length - maxPages} more pages not quoted)`);
  return lines.join("\n");
}

/** `Attached file "name" (type):\n[page 1]\n…` — the text part attachments become (chat/turn/attachments.ts). */
export function parseAttachedText(text: string): FileAttachment | undefined {
  const head = /^Attached file "(.*)" \(([^)]*)\):\n/.exec(text);
  if (!head) return undefined;
  const body = text.slice(head[0].length);
  const pages = body.split(/(?:^|\n\n)\[page \d+\]\n/).filter((page, i) => i > 0 || page.trim() !== "");
  return { filename: head[1] as string, mediaType: head[2] as string, pages: pages.length ? pages : [body] };
}
