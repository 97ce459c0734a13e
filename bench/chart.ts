/**
 * The benchmark as a picture: wall time and requests of a plan with no changes against the instance's size (its
 * projects), for forgeform, the lower bound and the peer (on the kinds both manage), drawn by Vega-Lite into an SVG
 * that docs/benchmarks.md shows above the tables.
 */
import { parse, View } from "vega";
import { compile, type TopLevelSpec } from "vega-lite";
import type { BenchResult, Row } from "./results.js";

interface Point {
  projects: number;
  series: string;
  measure: "Wall time (s)" | "Requests";
  value: number;
}

/** The plotted series: forgeform and its bound on every kind; the peer and forgeform on the kinds both manage. */
function points(result: BenchResult): Point[] {
  const projects = new Map(result.sizes.map((s) => [s.factor, s.shape.projects]));
  const out: Point[] = [];
  const add = (row: Row, series: string, wallMs: number, requests: number) => {
    const p = projects.get(row.factor);
    if (p === undefined) return;
    out.push({ projects: p, series, measure: "Wall time (s)", value: wallMs / 1000 });
    out.push({ projects: p, series, measure: "Requests", value: requests });
  };
  for (const row of result.rows) {
    if (row.scenario !== "plan, no changes") continue;
    if (row.tool === "forgeform" && row.scope === "all") {
      add(row, "forgeform, every kind", row.wallMs, row.requests);
      add(row, "lower bound, every kind", row.bound.wallMs, row.bound.requests);
    } else if (row.scope === "common") {
      add(
        row,
        row.tool === "forgeform" ? "forgeform, common kinds" : "gitlabracadabra, common kinds",
        row.wallMs,
        row.requests,
      );
    }
  }
  return out;
}

/** The Vega-Lite specification of the chart (two panels side by side, log scales). */
export function chartSpec(result: BenchResult): TopLevelSpec {
  return {
    $schema: "https://vega.github.io/schema/vega-lite/v6.json",
    title: {
      text: "Plan with no changes, by instance size",
      subtitle: `${result.latencyMs} ms latency a request, concurrency ${result.concurrency}, ${result.environment.cpus} CPUs`,
    },
    data: { values: points(result) as unknown as Record<string, unknown>[] },
    facet: {
      column: { field: "measure", type: "nominal", title: null, sort: ["Wall time (s)", "Requests"] },
    },
    resolve: { scale: { y: "independent" } },
    spec: {
      width: 320,
      height: 240,
      mark: { type: "line", point: true },
      encoding: {
        x: { field: "projects", type: "quantitative", scale: { type: "log" }, title: "Projects" },
        y: { field: "value", type: "quantitative", scale: { type: "log" }, title: null },
        color: {
          field: "series",
          type: "nominal",
          title: null,
          legend: { orient: "bottom", columns: 2, labelLimit: 320 },
        },
        strokeDash: {
          condition: { test: "indexof(datum.series, 'bound') >= 0", value: [4, 3] },
          value: [1, 0],
        },
      },
    },
  };
}

/** The chart as an SVG document. */
export async function renderChart(result: BenchResult): Promise<string> {
  const view = new View(parse(compile(chartSpec(result)).spec), { renderer: "none" });
  try {
    return `${await view.toSVG()}\n`;
  } finally {
    view.finalize();
  }
}
