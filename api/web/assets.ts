import { join } from "node:path";

/**
 * The website's client code, bundled once per process by Bun.build in memory (nothing is
 * written to disk or committed). Asset names carry a content hash, so they are served as
 * immutable and a new deploy changes every URL that changed.
 */
export interface Asset {
  body: Uint8Array<ArrayBuffer>;
  /** The same bytes gzipped, for clients that accept it (Bun's server does not compress). */
  gzip: Uint8Array;
  type: string;
  etag: string;
}

export interface WebAssets {
  /** The URL path of the page script, e.g. `/assets/main-3k2j1h9a.js`. */
  script: string;
  /** The URL path of the stylesheet. */
  style: string;
  /** Asset file name (without `/assets/`) → content. */
  files: Map<string, Asset>;
}

const CLIENT_DIR = join(import.meta.dir, "client");

let built: Promise<WebAssets> | undefined;

/** The bundled assets; the first call builds them, later calls share that build. */
export function webAssets(): Promise<WebAssets> {
  built ??= build().catch((error: unknown) => {
    // A failed build is retried by the next request instead of being cached forever.
    built = undefined;
    throw error;
  });
  return built;
}

async function build(): Promise<WebAssets> {
  const result = await Bun.build({
    entrypoints: [join(CLIENT_DIR, "main.ts")],
    target: "browser",
    minify: true,
    sourcemap: "none",
    naming: "[name]-[hash].[ext]",
  });
  if (!result.success) {
    throw new AggregateError(result.logs, "The website's client bundle failed to build");
  }
  const files = new Map<string, Asset>();
  let script = "";
  for (const output of result.outputs) {
    const name = output.path.replace(/^\.\//, "");
    files.set(name, asset(new Uint8Array(await output.arrayBuffer()), output.type));
    if (output.kind === "entry-point") script = `/assets/${name}`;
  }
  const css = new Uint8Array(await Bun.file(join(CLIENT_DIR, "styles.css")).arrayBuffer());
  const styleName = `styles-${Bun.hash(css).toString(36)}.css`;
  files.set(styleName, asset(css, "text/css; charset=utf-8"));
  return { script, style: `/assets/${styleName}`, files };
}

function asset(body: Uint8Array<ArrayBuffer>, type: string): Asset {
  return {
    body,
    gzip: Bun.gzipSync(body),
    type: type.replace(";charset=", "; charset="),
    etag: `"${Bun.hash(body).toString(36)}"`,
  };
}
