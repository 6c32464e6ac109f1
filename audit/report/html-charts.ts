/**
 * The HTML report's charts, drawn as inline SVG (no script, no library, no network): the trend of findings by
 * severity over the runs of history.json, and pass-rate bars. Every text is HTML-escaped.
 */
import type { HistoryEntry } from "../history.js";
import { escapeHtml as h } from "./escape.js";

/** A run's point of the trend: its id and its findings by severity. */
export interface TrendPoint {
  runId: string;
  findings: Record<string, number>;
  passRate?: number;
}

/** Colours per severity (others grey). */
const COLOURS: Readonly<Record<string, string>> = {
  violation: "#b42318",
  warning: "#9a6700",
  audit: "#0969da",
  waived: "#8250df",
  shadow: "#6e7781",
  "template-annotation-failure": "#e16f24",
  "policy-failure": "#cf222e",
  "input-error": "#953800",
};

const WIDTH = 720;
const HEIGHT = 220;
const PAD = { left: 48, right: 12, top: 12, bottom: 28 };

/** A round axis maximum at or above `n` (1, 2, 5 × a power of ten). */
function niceMax(n: number): number {
  if (n <= 0) return 1;
  const p = 10 ** Math.floor(Math.log10(n));
  for (const m of [1, 2, 5, 10]) if (m * p >= n) return m * p;
  return 10 * p;
}

/** The points of the trend: the history's runs (oldest first), then this run. */
export function trendPoints(history: readonly HistoryEntry[], current: TrendPoint): TrendPoint[] {
  const points: TrendPoint[] = history.map((e) => {
    const p: TrendPoint = { runId: e.runId, findings: e.findings };
    if (e.objects.checked > 0) p.passRate = rate(e.objects.checked, e.objects.failed);
    return p;
  });
  points.push(current);
  return points;
}

function rate(checked: number, failed: number): number {
  return Math.round((1000 * (checked - failed)) / checked) / 10;
}

/**
 * Findings by severity over the runs: one line per severity that occurred in any run, a point per run (its count
 * in a tooltip), the y axis from 0 to a round maximum. One run draws points only.
 */
export function trendChart(points: readonly TrendPoint[], severities: readonly string[]): string {
  const shown = severities.filter((s) => points.some((p) => (p.findings[s] ?? 0) > 0));
  const max = niceMax(Math.max(0, ...points.flatMap((p) => shown.map((s) => p.findings[s] ?? 0))));
  const plotW = WIDTH - PAD.left - PAD.right;
  const plotH = HEIGHT - PAD.top - PAD.bottom;
  const x = (i: number) => PAD.left + (points.length === 1 ? plotW / 2 : (i * plotW) / (points.length - 1));
  const y = (v: number) => PAD.top + plotH - (v * plotH) / max;
  const parts: string[] = [];
  for (const v of [0, max / 2, max]) {
    parts.push(
      `<line x1="${PAD.left}" x2="${WIDTH - PAD.right}" y1="${y(v)}" y2="${y(v)}" stroke="#d0d7de"/>`,
      `<text x="${PAD.left - 6}" y="${y(v) + 4}" text-anchor="end" font-size="11" fill="#57606a">${v}</text>`,
    );
  }
  const first = points[0]?.runId ?? "";
  const last = points[points.length - 1]?.runId ?? "";
  parts.push(
    `<text x="${PAD.left}" y="${HEIGHT - 8}" font-size="11" fill="#57606a">${h(first)}</text>`,
    `<text x="${WIDTH - PAD.right}" y="${HEIGHT - 8}" text-anchor="end" font-size="11" fill="#57606a">${h(last)}</text>`,
  );
  for (const s of shown) {
    const colour = COLOURS[s] ?? "#57606a";
    const coords = points.map((p, i) => `${x(i).toFixed(1)},${y(p.findings[s] ?? 0).toFixed(1)}`);
    if (points.length > 1) {
      parts.push(
        `<polyline class="trend-line" data-severity="${h(s)}" fill="none" stroke="${colour}" stroke-width="2" points="${coords.join(" ")}"/>`,
      );
    }
    points.forEach((p, i) => {
      parts.push(
        `<circle cx="${coords[i]!.split(",")[0]}" cy="${coords[i]!.split(",")[1]}" r="3" fill="${colour}"><title>${h(p.runId)}: ${p.findings[s] ?? 0} ${h(s)}</title></circle>`,
      );
    });
  }
  const legend = shown
    .map((s) => `<span class="legend"><i style="background:${COLOURS[s] ?? "#57606a"}"></i>${h(s)}</span>`)
    .join(" ");
  return `<svg id="trend-chart" role="img" aria-label="Findings by severity over the last ${points.length} run(s)" viewBox="0 0 ${WIDTH} ${HEIGHT}" width="100%" preserveAspectRatio="xMidYMid meet" data-runs="${points.length}">${parts.join("")}</svg>
<p class="legends">${legend === "" ? "No findings in these runs." : legend}</p>`;
}

/** A horizontal pass-rate bar (a percentage, or "n/a" when nothing was checked). */
export function passBar(rateValue: number | undefined): string {
  if (rateValue === undefined) return `<span class="pass na">n/a</span>`;
  const colour = rateValue >= 95 ? "#1a7f37" : rateValue >= 80 ? "#9a6700" : "#b42318";
  return `<span class="pass" data-rate="${rateValue}"><svg width="50" height="10" aria-hidden="true"><rect width="50" height="10" fill="#eaeef2"/><rect width="${(rateValue * 0.5).toFixed(1)}" height="10" fill="${colour}"/></svg> ${rateValue}%</span>`;
}
