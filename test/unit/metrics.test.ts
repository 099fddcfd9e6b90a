import { describe, expect, test } from "bun:test";
import { routeMatcher } from "../../api/plugins/routeTable";
import { Counter, Gauge, Histogram, Registry, renderMetrics } from "../../shared/metrics/registry";
import { checkHistograms, parseExposition, samplesOf, sumOf } from "../helpers/prometheus";

describe("metrics registry", () => {
  test("label values with backslashes, quotes and line feeds survive the exposition", () => {
    const counter = new Counter("odd_total", 'Help with a \\ backslash\nand a line feed "quoted".', ["value"]);
    const odd = 'a\\b"c\nd}e,f="g"';
    counter.labels(odd).inc(2);
    const text = renderMetrics([counter]);
    expect(text).toContain('# HELP odd_total Help with a \\\\ backslash\\nand a line feed "quoted".');
    expect(text).toContain('odd_total{value="a\\\\b\\"c\\nd}e,f=\\"g\\""} 2');
    const parsed = parseExposition(text);
    expect(samplesOf(parsed, "odd_total")).toEqual([{ name: "odd_total", labels: { value: odd }, value: 2 }]);
  });

  test("histogram buckets are upper-inclusive and rendered cumulatively, +Inf equal to _count", () => {
    const histogram = new Histogram("h_seconds", "h", ["kind"], [0.1, 1]);
    const child = histogram.labels("a");
    for (const value of [0.05, 0.1, 0.5, 1, 7]) child.observe(value);
    const parsed = parseExposition(renderMetrics([histogram]));
    const bucket = (le: string) => sumOf(parsed, "h_seconds_bucket", { kind: "a", le });
    expect([bucket("0.1"), bucket("1"), bucket("+Inf")]).toEqual([2, 4, 5]);
    expect(sumOf(parsed, "h_seconds_count", { kind: "a" })).toBe(5);
    expect(sumOf(parsed, "h_seconds_sum", { kind: "a" })).toBeCloseTo(8.65);
    expect(checkHistograms(parsed)).toBe(1);
  });

  test("series without labels, gauges going down, and the registry's guards", () => {
    const registry = new Registry();
    const gauge = registry.register(new Gauge("g", "g", []));
    gauge.labels().inc(3);
    gauge.labels().dec();
    expect(registry.render()).toBe("# HELP g g\n# TYPE g gauge\ng 2\n");
    expect(() => registry.register(new Gauge("g", "again", []))).toThrow(/twice/);
    expect(() => new Counter("c_total", "c", ["a", "b"]).labels("only one")).toThrow(/2 label values/);
    expect(() => new Histogram("h", "h", [], [1, 1])).toThrow(/increase/);
  });
});

describe("route matcher (requests refused before routing)", () => {
  const match = routeMatcher([
    { method: "GET", path: "/api/v1/health/trackers/:trackerId" },
    { method: "GET", path: "/api/v1/health/trackers/summary" },
    { method: "POST", path: "/api/v1/health/trackers/:trackerId/entries" },
    { method: "GET", path: "/api/v1/papers/*" },
    { method: "ALL", path: "/api/mcp" },
  ]);

  test("gives the pattern, exact paths first, by method", () => {
    expect(match("GET", "/api/v1/health/trackers/019a-b")).toBe("/api/v1/health/trackers/:trackerId");
    expect(match("GET", "/api/v1/health/trackers/summary")).toBe("/api/v1/health/trackers/summary");
    expect(match("POST", "/api/v1/health/trackers/x/entries")).toBe("/api/v1/health/trackers/:trackerId/entries");
    expect(match("GET", "/api/v1/papers/hep-th/9901001")).toBe("/api/v1/papers/*");
    expect(match("DELETE", "/api/mcp")).toBe("/api/mcp");
  });

  test("nothing for other methods, deeper paths or unknown paths", () => {
    expect(match("DELETE", "/api/v1/health/trackers/x")).toBeUndefined();
    expect(match("GET", "/api/v1/health/trackers/x/y")).toBeUndefined();
    expect(match("GET", "/wp-login.php")).toBeUndefined();
  });
});
