import { el, scale } from "./chart";
import { h } from "./dom";
import {
  type AnalyteHistory,
  collectedDate,
  counted,
  flagMark,
  type LabFlag,
  type MatchedPoint,
  rangeText,
  shortDate,
  withUnit,
} from "./labData";

/**
 * One test over time as inline SVG, in the style of the logs chart: values as points joined by a
 * line, each report's reference range as a shaded band behind them, flagged values drawn as
 * triangles (▲ high, ▼ low) or a diamond (abnormal) and labelled H, L or !. The summary and the
 * table beside it are the text alternative.
 */

const WIDTH = 640;
const HEIGHT = 260;
const PAD = { left: 52, right: 24, top: 40, bottom: 40 };
const LEFT = PAD.left + 12;
const RIGHT = WIDTH - PAD.right - 12;

/** Round ticks (1, 2 or 5 × 10ⁿ apart) from at or below `min` to at or above `max`. */
function ticks(min: number, max: number): number[] {
  const pad = Math.max(1, Math.abs(min) * 0.1);
  const [below, high] = min === max ? [min - pad, max + pad] : [min, max];
  // Concentrations are not negative: no axis below zero for them.
  const low = min >= 0 ? Math.max(0, below) : below;
  const raw = (high - low) / 5;
  const power = 10 ** Math.floor(Math.log10(raw));
  // The tolerance keeps float noise (6.4 − 3.9 = 2.5000000000000004) from doubling the step.
  const step = ([1, 2, 5, 10].find((m) => m * power >= raw * (1 - 1e-9)) ?? 10) * power;
  const decimals = Math.max(0, -Math.floor(Math.log10(step) + 1e-9));
  const values: number[] = [];
  for (let at = Math.floor(low / step + 1e-9) * step; ; at += step) {
    values.push(Number(at.toFixed(decimals)));
    if (at >= high - step * 1e-9) return values;
  }
}

function mark(x: number, y: number, flag: LabFlag | null): SVGElement {
  switch (flag) {
    case "high":
      return el("path", { d: `M${x},${y - 7} L${x + 6.5},${y + 5} L${x - 6.5},${y + 5} Z` });
    case "low":
      return el("path", { d: `M${x},${y + 7} L${x + 6.5},${y - 5} L${x - 6.5},${y - 5} Z` });
    case "abnormal":
      return el("path", { d: `M${x},${y - 7} L${x + 7},${y} L${x},${y + 7} L${x - 7},${y} Z` });
    default:
      return el("circle", { cx: x, cy: y, r: 5 });
  }
}

const FLAG_LABEL: Partial<Record<LabFlag, string>> = { high: "H", low: "L", abnormal: "!" };

/** The points the chart can draw: a number, in the chart's unit. */
function drawable(history: AnalyteHistory, points: MatchedPoint[]): MatchedPoint[] {
  return points.filter((point) => point.value !== null && point.unit === history.analyte.unit);
}

/**
 * The band: each drawn point's own range over the stretch of time nearest to it, neighbours with
 * the same range merged into one rectangle. One-sided ranges ("< 200") reach the plot's edge.
 */
function bands(points: MatchedPoint[], xs: number[], y: (value: number) => number, domain: [number, number]) {
  const group = el("g", { class: "band" });
  let open: { from: number; to: number; low: number | null; high: number | null } | null = null;
  const close = () => {
    if (!open) return;
    const top = y(open.high ?? domain[1]);
    const bottom = y(open.low ?? domain[0]);
    const rect = el("rect", { x: open.from, y: top, width: open.to - open.from, height: bottom - top });
    rect.setAttribute("data-low", open.low === null ? "" : String(open.low));
    rect.setAttribute("data-high", open.high === null ? "" : String(open.high));
    group.append(rect);
    open = null;
  };
  points.forEach((point, index) => {
    const x = xs[index] as number;
    const from = index === 0 ? PAD.left : (x + (xs[index - 1] as number)) / 2;
    const to = index === points.length - 1 ? WIDTH - PAD.right : (x + (xs[index + 1] as number)) / 2;
    const range = point.range;
    if (open && (!range || range.low !== open.low || range.high !== open.high)) close();
    if (!range) return;
    if (open) open.to = to;
    else open = { from, to, low: range.low, high: range.high };
  });
  close();
  return group;
}

/** Draws the chart into `host`; returns how many points it drew. */
export function drawLabChart(host: HTMLElement, history: AnalyteHistory, all: MatchedPoint[]): number {
  const points = drawable(history, all);
  if (points.length === 0) {
    host.replaceChildren(h("p", { class: "muted" }, "No numeric values to draw; the table lists every result."));
    return 0;
  }
  const unit = history.analyte.unit;
  const times = points.map((point) => Date.parse(point.collectedAt));
  const x = scale(Math.min(...times), Math.max(...times), LEFT, RIGHT);
  const bounds = points.flatMap((p) => [p.value as number, p.range?.low ?? NaN, p.range?.high ?? NaN]);
  const levels = ticks(Math.min(...bounds.filter(Number.isFinite)), Math.max(...bounds.filter(Number.isFinite)));
  const domain: [number, number] = [levels[0] as number, levels[levels.length - 1] as number];
  const y = scale(domain[0], domain[1], HEIGHT - PAD.bottom, PAD.top);

  const svg = el("svg", { viewBox: `0 0 ${WIDTH} ${HEIGHT}`, role: "img", "aria-labelledby": "lab-chart-title" });
  svg.setAttribute("class", "chart lab-chart");
  const count = counted(points.length, "result");
  svg.append(
    el(
      "title",
      { id: "lab-chart-title" },
      `${history.analyte.name} over time${unit ? ` in ${unit}` : ""}: ${count}; the shaded band is the reference range. The table below lists every value.`,
    ),
  );
  const axes = el("g", { class: "axes" });
  for (const level of levels) {
    axes.append(el("line", { x1: PAD.left, x2: WIDTH - PAD.right, y1: y(level), y2: y(level), class: "grid" }));
    axes.append(el("text", { x: PAD.left - 8, y: y(level) + 4, "text-anchor": "end" }, String(level)));
  }
  axes.append(el("text", { x: 4, y: 16, class: "axis-title" }, unit ?? history.analyte.name));
  const first = points[0] as MatchedPoint;
  const last = points[points.length - 1] as MatchedPoint;
  axes.append(el("text", { x: LEFT, y: HEIGHT - 10, "text-anchor": "middle" }, shortDate(first.collectedAt)));
  if (times[0] !== times[times.length - 1])
    axes.append(el("text", { x: RIGHT, y: HEIGHT - 10, "text-anchor": "middle" }, shortDate(last.collectedAt)));
  const xs = times.map(x);
  svg.append(bands(points, xs, y, domain), axes);

  const series = el("g", { class: "series" });
  const coordinates = points.map((point, index) => [xs[index] as number, y(point.value as number)] as const);
  if (points.length > 1)
    series.append(el("polyline", { points: coordinates.map(([px, py]) => `${px},${py}`).join(" "), fill: "none" }));
  points.forEach((point, index) => {
    const [px, py] = coordinates[index] as readonly [number, number];
    const shape = mark(px, py, point.flag);
    shape.setAttribute("class", `point${flagMark(point.flag) ? " flagged" : ""}`);
    shape.setAttribute("data-panel-id", point.panelId);
    shape.setAttribute("data-value", String(point.value));
    shape.setAttribute("data-flag", point.flag ?? "");
    const word = flagMark(point.flag)?.word;
    shape.append(
      el(
        "title",
        {},
        `${withUnit(point.value as number, unit)}, ${collectedDate(point.collectedAt)}${word ? `, ${word}` : ""}`,
      ),
    );
    series.append(shape);
    const label = point.flag ? FLAG_LABEL[point.flag] : undefined;
    if (label) series.append(el("text", { x: px + 9, y: py - 7, class: "flag-label" }, label));
  });
  svg.append(series);
  host.replaceChildren(svg);
  return points.length;
}

/** One sentence or two a screen reader or a quick reader gets instead of the chart. */
export function summarize(history: AnalyteHistory, all: MatchedPoint[]): string {
  const points = drawable(history, all);
  const unit = history.analyte.unit;
  const parts: string[] = [];
  const n = all.length;
  parts.push(`${counted(n, "result")} of ${history.analyte.name}`);
  const first = all[0];
  const last = all[n - 1];
  if (first && last && first !== last)
    parts[0] += ` from ${collectedDate(first.collectedAt)} to ${collectedDate(last.collectedAt)}`;
  const latest = points[points.length - 1];
  if (latest) {
    const word = flagMark(latest.flag)?.word;
    parts.push(`latest ${withUnit(latest.value as number, unit)}${word ? ` (${word})` : ""}`);
    const values = points.map((point) => point.value as number);
    if (points.length > 1) parts.push(`lowest ${Math.min(...values)}, highest ${Math.max(...values)}`);
  }
  const high = all.filter((point) => point.flag === "high").length;
  const low = all.filter((point) => point.flag === "low").length;
  const abnormal = all.filter((point) => point.flag === "abnormal").length;
  const flagged = [high && `${high} high`, low && `${low} low`, abnormal && `${abnormal} abnormal`].filter(Boolean);
  parts.push(flagged.length ? `flagged: ${flagged.join(", ")}` : "none flagged");
  let text = `${parts.join("; ")}.`;
  if (points.length < n) text += ` ${n - points.length} not drawn (no number, or a unit that cannot be converted).`;
  const ranged = points.filter((point) => point.range).length;
  const inUnit = `in ${unit ?? "this unit"}`;
  if (points.length > 0 && ranged === 0) text += ` No reference range ${inUnit} to draw.`;
  else if (ranged < points.length) text += ` The band is left out where a report gave no range ${inUnit}.`;
  return text;
}

/** The rows of the text alternative: every result, oldest first, with its value as printed. */
export function historyRows(history: AnalyteHistory, all: MatchedPoint[]): HTMLTableRowElement[] {
  return all.map((point) => {
    const mark = flagMark(point.flag);
    const printed = point.result ? withUnit(point.result.valueText, point.result.unit) : "—";
    const range = point.result ? rangeText(point.result.referenceRange) : null;
    return h(
      "tr",
      { "data-panel-id": point.panelId, class: mark ? "flagged" : undefined },
      h("td", {}, collectedDate(point.collectedAt)),
      h("td", {}, point.value === null ? "—" : withUnit(point.value, point.unit ?? history.analyte.unit)),
      h("td", {}, printed),
      h("td", {}, range ? withUnit(range, point.result?.unit ?? null) : "—"),
      flagCell(point.flag),
    );
  });
}

/** A flag as a visible marker (H, L, abnormal) with its word for screen readers. */
export function flagCell(flag: LabFlag | null): HTMLTableCellElement {
  const mark = flagMark(flag);
  if (!mark) return h("td", {});
  const hidden = mark.mark === mark.word ? null : h("span", { class: "visually-hidden" }, ` (${mark.word})`);
  return h("td", {}, h("span", { class: "flag", "data-flag": flag ?? undefined }, mark.mark), hidden);
}
