/**
 * A small metrics registry: counters, gauges and fixed-bucket histograms, rendered in the Prometheus
 * text exposition format 0.0.4. Not prom-client: it is a large dependency whose default collectors we
 * do not need, and a request here must cost a few Map lookups and number increments (the auth chain
 * is benchmarked). Series are children looked up by label values; a hot path keeps the child it got
 * and increments it directly.
 */

export const EXPOSITION_CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8";

type MetricType = "counter" | "gauge" | "histogram";

interface Family<Child> {
  readonly name: string;
  readonly help: string;
  readonly type: MetricType;
  readonly labelNames: readonly string[];
  /** `a="x",b="y"` per child, computed once when the child is created. */
  readonly children: Map<string, { pairs: string; child: Child }>;
}

export class CounterChild {
  value = 0;
  inc(by = 1): void {
    this.value += by;
  }
}

export class GaugeChild {
  value = 0;
  inc(by = 1): void {
    this.value += by;
  }
  dec(by = 1): void {
    this.value -= by;
  }
  set(value: number): void {
    this.value = value;
  }
}

export class HistogramChild {
  /** Per-bucket counts, not cumulative (cumulated when rendered); the last slot is above every bound. */
  readonly counts: Float64Array;
  sum = 0;
  count = 0;
  constructor(readonly bounds: readonly number[]) {
    this.counts = new Float64Array(bounds.length + 1);
  }
  observe(value: number): void {
    let i = 0;
    while (i < this.bounds.length && value > (this.bounds[i] as number)) i++;
    this.counts[i] = (this.counts[i] as number) + 1;
    this.sum += value;
    this.count += 1;
  }
}

abstract class Metric<Child> implements Family<Child> {
  readonly children = new Map<string, { pairs: string; child: Child }>();
  abstract readonly type: MetricType;
  constructor(
    readonly name: string,
    readonly help: string,
    readonly labelNames: readonly string[] = [],
  ) {}
  protected abstract create(): Child;
  /** The series with these label values (in `labelNames` order), created on first use. */
  labels(...values: string[]): Child {
    const key = values.join("\u0000");
    let entry = this.children.get(key);
    if (!entry) {
      if (values.length !== this.labelNames.length) {
        throw new Error(`${this.name} takes ${this.labelNames.length} label values, got ${values.length}`);
      }
      const pairs = this.labelNames.map((label, i) => `${label}="${escapeLabelValue(values[i] as string)}"`).join(",");
      entry = { pairs, child: this.create() };
      this.children.set(key, entry);
    }
    return entry.child;
  }
  /** Forgets every series (a scrape-time gauge is rebuilt each time). */
  reset(): void {
    this.children.clear();
  }
}

export class Counter extends Metric<CounterChild> {
  readonly type = "counter";
  protected create() {
    return new CounterChild();
  }
}

export class Gauge extends Metric<GaugeChild> {
  readonly type = "gauge";
  protected create() {
    return new GaugeChild();
  }
}

export class Histogram extends Metric<HistogramChild> {
  readonly type = "histogram";
  readonly bounds: readonly number[];
  constructor(name: string, help: string, labelNames: readonly string[], bounds: readonly number[]) {
    super(name, help, labelNames);
    if (bounds.some((bound, i) => i > 0 && bound <= (bounds[i - 1] as number))) {
      throw new Error(`${name}: bucket bounds must increase`);
    }
    this.bounds = bounds;
  }
  protected create() {
    return new HistogramChild(this.bounds);
  }
}

export type AnyMetric = Counter | Gauge | Histogram;

/** A set of metrics rendered together; names are unique within it. */
export class Registry {
  private readonly metrics = new Map<string, AnyMetric>();
  register<M extends AnyMetric>(metric: M): M {
    if (this.metrics.has(metric.name)) throw new Error(`Metric ${metric.name} is registered twice`);
    this.metrics.set(metric.name, metric);
    return metric;
  }
  render(): string {
    return renderMetrics([...this.metrics.values()]);
  }
}

/** The exposition text of these metrics: `# HELP`, `# TYPE`, then one line per sample. */
export function renderMetrics(metrics: readonly AnyMetric[]): string {
  const lines: string[] = [];
  for (const metric of metrics) {
    lines.push(`# HELP ${metric.name} ${escapeHelp(metric.help)}`, `# TYPE ${metric.name} ${metric.type}`);
    if (metric instanceof Histogram) {
      for (const { pairs, child } of metric.children.values()) renderHistogram(lines, metric, pairs, child);
    } else {
      for (const { pairs, child } of metric.children.values()) {
        lines.push(`${metric.name}${pairs ? `{${pairs}}` : ""} ${formatValue(child.value)}`);
      }
    }
  }
  return lines.length > 0 ? `${lines.join("\n")}\n` : "";
}

function renderHistogram(lines: string[], metric: Histogram, pairs: string, child: HistogramChild): void {
  const prefix = pairs ? `${pairs},` : "";
  let cumulative = 0;
  metric.bounds.forEach((bound, i) => {
    cumulative += child.counts[i] as number;
    lines.push(`${metric.name}_bucket{${prefix}le="${formatValue(bound)}"} ${cumulative}`);
  });
  lines.push(`${metric.name}_bucket{${prefix}le="+Inf"} ${child.count}`);
  const braces = pairs ? `{${pairs}}` : "";
  lines.push(`${metric.name}_sum${braces} ${formatValue(child.sum)}`, `${metric.name}_count${braces} ${child.count}`);
}

export function formatValue(value: number): string {
  if (Number.isNaN(value)) return "NaN";
  if (value === Number.POSITIVE_INFINITY) return "+Inf";
  if (value === Number.NEGATIVE_INFINITY) return "-Inf";
  return String(value);
}

/** Label values escape backslash, double quote and line feed (format 0.0.4). */
export function escapeLabelValue(value: string): string {
  return value.replace(/[\\"\n]/g, (c) => (c === "\n" ? "\\n" : `\\${c}`));
}

/** HELP text escapes backslash and line feed only. */
function escapeHelp(help: string): string {
  return help.replace(/[\\\n]/g, (c) => (c === "\n" ? "\\n" : "\\\\"));
}
