import { escapeHtml } from "./html";

/**
 * A small inline SVG line of a test's values, oldest to newest, for the shared record's page. Drawn
 * with presentation attributes only (no `style`), so the page's CSP needs no inline styles; its
 * label says in words what it draws, and the values are in the table beside it.
 */
const WIDTH = 120;
const HEIGHT = 28;
const PAD = 3;

const fixed = (value: number) => Number(value.toFixed(1));

export function sparkline(values: readonly number[], label: string): string {
  if (values.length < 2) return "";
  const low = Math.min(...values);
  const high = Math.max(...values);
  const span = high - low || 1;
  const step = (WIDTH - 2 * PAD) / (values.length - 1);
  const points = values.map((value, i) => {
    const x = fixed(PAD + i * step);
    // A flat series runs through the middle rather than along the bottom edge.
    const y = fixed(high === low ? HEIGHT / 2 : HEIGHT - PAD - ((value - low) / span) * (HEIGHT - 2 * PAD));
    return [x, y] as const;
  });
  const [lastX, lastY] = points.at(-1) as readonly [number, number];
  return `<svg class="sparkline" role="img" aria-label="${escapeHtml(label)}" width="${WIDTH}" height="${HEIGHT}" viewBox="0 0 ${WIDTH} ${HEIGHT}"><polyline fill="none" stroke="currentColor" stroke-width="1.5" points="${points.map(([x, y]) => `${x},${y}`).join(" ")}"/><circle cx="${lastX}" cy="${lastY}" r="2.5" fill="currentColor"/></svg>`;
}
