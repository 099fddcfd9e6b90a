/**
 * The logs chart: severity (0–10, left axis) and temperature (°C, right axis) over time, drawn as
 * inline SVG. The entries table next to it is the text alternative.
 */

export interface ChartEntry {
  id: string;
  recordedAt: string;
  severity: number | null;
  temperature: number | null;
  temperatureUnit: string | null;
}

const SVG = "http://www.w3.org/2000/svg";
const WIDTH = 640;
const HEIGHT = 260;
const PAD = { left: 44, right: 52, top: 30, bottom: 36 };

export function el(tag: string, attributes: Record<string, string | number>, text?: string): SVGElement {
  const node = document.createElementNS(SVG, tag);
  for (const [name, value] of Object.entries(attributes)) node.setAttribute(name, String(value));
  if (text !== undefined) node.textContent = text;
  return node;
}

export function celsius(entry: ChartEntry): number | null {
  if (entry.temperature === null) return null;
  return entry.temperatureUnit === "F" ? ((entry.temperature - 32) * 5) / 9 : entry.temperature;
}

/** Scales [min, max] onto [from, to]; a zero-width domain maps to the middle. */
export function scale(min: number, max: number, from: number, to: number) {
  return (value: number) => (max === min ? (from + to) / 2 : from + ((value - min) / (max - min)) * (to - from));
}

function series(
  points: [number, number][],
  className: string,
  shape: "circle" | "square",
  labels: string[],
  ids: string[],
) {
  const group = el("g", { class: className });
  if (points.length > 1) {
    group.append(el("polyline", { points: points.map(([x, y]) => `${x},${y}`).join(" "), fill: "none" }));
  }
  points.forEach(([x, y], index) => {
    const mark =
      shape === "circle"
        ? el("circle", { cx: x, cy: y, r: 5 })
        : el("rect", { x: x - 4.5, y: y - 4.5, width: 9, height: 9 });
    mark.setAttribute("data-entry-id", ids[index] ?? "");
    mark.append(el("title", {}, labels[index] ?? ""));
    group.append(mark);
  });
  return group;
}

/** Draws the chart of these entries (any order) into `host`; returns a one-line description. */
export function drawChart(host: HTMLElement, entries: ChartEntry[]): string {
  const sorted = [...entries].sort((a, b) => a.recordedAt.localeCompare(b.recordedAt));
  const times = sorted.map((entry) => Date.parse(entry.recordedAt));
  const temps = sorted.map(celsius).filter((t): t is number => t !== null);
  const x = scale(Math.min(...times), Math.max(...times), PAD.left + 12, WIDTH - PAD.right - 12);
  const ySeverity = scale(0, 10, HEIGHT - PAD.bottom, PAD.top);
  const tMin = temps.length ? Math.floor(Math.min(...temps, 36)) : 36;
  const tMax = temps.length ? Math.ceil(Math.max(...temps, 40)) : 40;
  const yTemp = scale(tMin, tMax, HEIGHT - PAD.bottom, PAD.top);

  const svg = el("svg", {
    viewBox: `0 0 ${WIDTH} ${HEIGHT}`,
    role: "img",
    "aria-labelledby": "chart-svg-title",
    class: "chart",
  });
  const description = `${sorted.length} entr${sorted.length === 1 ? "y" : "ies"}; the table below lists every value.`;
  svg.append(el("title", { id: "chart-svg-title" }, `Severity and temperature over time: ${description}`));

  const axes = el("g", { class: "axes" });
  for (const level of [0, 2, 4, 6, 8, 10]) {
    const y = ySeverity(level);
    axes.append(el("line", { x1: PAD.left, x2: WIDTH - PAD.right, y1: y, y2: y, class: "grid" }));
    axes.append(el("text", { x: PAD.left - 8, y: y + 4, "text-anchor": "end" }, String(level)));
  }
  for (let t = tMin; t <= tMax; t += Math.max(1, Math.round((tMax - tMin) / 5))) {
    axes.append(el("text", { x: WIDTH - PAD.right + 8, y: yTemp(t) + 4, class: "temp-label" }, `${t}°`));
  }
  axes.append(el("text", { x: 4, y: 12, class: "axis-title" }, "Severity"));
  axes.append(el("text", { x: WIDTH - 4, y: 12, "text-anchor": "end", class: "axis-title temp-label" }, "°C"));
  const first = sorted[0];
  const last = sorted[sorted.length - 1];
  if (first && last) {
    const day = (iso: string) => new Date(iso).toLocaleString(undefined, { dateStyle: "short", timeStyle: "short" });
    axes.append(el("text", { x: PAD.left, y: HEIGHT - 10 }, day(first.recordedAt)));
    if (last !== first)
      axes.append(el("text", { x: WIDTH - PAD.right, y: HEIGHT - 10, "text-anchor": "end" }, day(last.recordedAt)));
  }
  svg.append(axes);

  const withSeverity = sorted.filter((entry) => entry.severity !== null);
  svg.append(
    series(
      withSeverity.map((entry) => [x(Date.parse(entry.recordedAt)), ySeverity(entry.severity as number)]),
      "severity",
      "circle",
      withSeverity.map((entry) => `Severity ${entry.severity}, ${new Date(entry.recordedAt).toLocaleString()}`),
      withSeverity.map((entry) => entry.id),
    ),
  );
  const withTemp = sorted.filter((entry) => entry.temperature !== null);
  svg.append(
    series(
      withTemp.map((entry) => [x(Date.parse(entry.recordedAt)), yTemp(celsius(entry) as number)]),
      "temperature",
      "square",
      withTemp.map(
        (entry) => `${entry.temperature} °${entry.temperatureUnit}, ${new Date(entry.recordedAt).toLocaleString()}`,
      ),
      withTemp.map((entry) => entry.id),
    ),
  );
  host.replaceChildren(svg);
  return `Circles: severity (left axis, 0–10). Squares: temperature (right axis, °C). ${description}`;
}
