/**
 * A strict little parser of the Prometheus text format 0.0.4, enough to check what /metrics serves:
 * every sample line must parse, and every sample must follow its family's `# HELP` and `# TYPE`.
 */
export interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

export interface Exposition {
  samples: Sample[];
  /** Family name → type. */
  types: Map<string, string>;
  helps: Map<string, string>;
}

const SAMPLE = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$/;
const LABEL = /([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"(,|$)/gy;

export function parseExposition(text: string): Exposition {
  const exposition: Exposition = { samples: [], types: new Map(), helps: new Map() };
  if (!text.endsWith("\n")) throw new Error("The exposition must end with a line feed");
  for (const line of text.slice(0, -1).split("\n")) {
    const comment = /^# (HELP|TYPE) ([a-zA-Z_:][a-zA-Z0-9_:]*) (.*)$/.exec(line);
    if (comment) {
      const [, kind, name, rest] = comment as unknown as [string, string, string, string];
      if (kind === "HELP") exposition.helps.set(name, rest);
      else if (exposition.helps.has(name)) exposition.types.set(name, rest);
      else throw new Error(`TYPE before HELP for ${name}`);
      continue;
    }
    const match = SAMPLE.exec(line);
    if (!match) throw new Error(`Not a sample line: ${JSON.stringify(line)}`);
    const [, name, labelText, valueText] = match as unknown as [string, string, string | undefined, string];
    const family = familyOf(name, exposition.types);
    if (!family) throw new Error(`Sample ${name} has no TYPE line before it`);
    exposition.samples.push({ name, labels: parseLabels(labelText ?? ""), value: parseValue(valueText) });
  }
  return exposition;
}

function familyOf(name: string, types: Map<string, string>): string | undefined {
  if (types.has(name)) return name;
  const base = name.replace(/_(bucket|sum|count)$/, "");
  return types.get(base) === "histogram" ? base : undefined;
}

function parseLabels(text: string): Record<string, string> {
  const labels: Record<string, string> = {};
  LABEL.lastIndex = 0;
  let consumed = 0;
  for (let match = LABEL.exec(text); match; match = LABEL.exec(text)) {
    const [whole, name, raw] = match as unknown as [string, string, string];
    labels[name] = raw.replace(/\\(.)/g, (_, c: string) => (c === "n" ? "\n" : c));
    consumed += whole.length;
    if (consumed === text.length) break;
  }
  if (consumed !== text.length) throw new Error(`Bad label set: {${text}}`);
  return labels;
}

function parseValue(text: string): number {
  if (text === "+Inf") return Number.POSITIVE_INFINITY;
  if (text === "-Inf") return Number.NEGATIVE_INFINITY;
  const value = Number(text);
  if (Number.isNaN(value) && text !== "NaN") throw new Error(`Bad sample value ${text}`);
  return value;
}

/** Samples of `name` whose labels include `labels`. */
export function samplesOf(exposition: Exposition, name: string, labels: Record<string, string> = {}): Sample[] {
  return exposition.samples.filter(
    (sample) => sample.name === name && Object.entries(labels).every(([key, value]) => sample.labels[key] === value),
  );
}

/** The sum of the matching samples' values (0 when none). */
export function sumOf(exposition: Exposition, name: string, labels: Record<string, string> = {}): number {
  return samplesOf(exposition, name, labels).reduce((sum, sample) => sum + sample.value, 0);
}

/** Every histogram series is cumulative (buckets never decrease, `+Inf` equals `_count`); throws otherwise. */
export function checkHistograms(exposition: Exposition): number {
  let checked = 0;
  for (const [family, type] of exposition.types) {
    if (type !== "histogram") continue;
    const series = new Map<string, Sample[]>();
    for (const sample of samplesOf(exposition, `${family}_bucket`)) {
      const { le: _, ...rest } = sample.labels;
      const key = JSON.stringify(rest);
      series.set(key, [...(series.get(key) ?? []), sample]);
    }
    for (const [key, buckets] of series) {
      const labels = JSON.parse(key) as Record<string, string>;
      const bounds = buckets.map((bucket) => parseValue(bucket.labels.le as string));
      if (bounds.some((bound, i) => i > 0 && bound <= (bounds[i - 1] as number)) || bounds.at(-1) !== Infinity) {
        throw new Error(`${family} ${key}: buckets out of order or no +Inf`);
      }
      if (buckets.some((bucket, i) => i > 0 && bucket.value < (buckets[i - 1] as Sample).value)) {
        throw new Error(`${family} ${key}: buckets are not cumulative`);
      }
      const count = samplesOf(exposition, `${family}_count`, labels);
      if (count.length !== 1 || count[0]?.value !== buckets.at(-1)?.value) {
        throw new Error(`${family} ${key}: _count differs from the +Inf bucket`);
      }
      if (samplesOf(exposition, `${family}_sum`, labels).length !== 1) throw new Error(`${family} ${key}: no _sum`);
      checked += 1;
    }
  }
  return checked;
}
