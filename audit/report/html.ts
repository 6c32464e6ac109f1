/**
 * report.html: a self-contained page for people: totals and the pass rate, the trend of findings by severity over
 * the runs of history.json (inline SVG), the comparison with the previous run, breakdowns by policy, namespace,
 * team, controller and kind with their pass rates, the resolved findings, notes (never shown as failures), and a
 * searchable, sortable findings table with new findings marked. No external assets (a Content-Security-Policy
 * forbids any), and every untrusted text (names, messages, rule texts, paths) is HTML-escaped; the inline script only
 * shows, hides and reorders rows already rendered.
 */
import { type AuditResult, FINDING_SEVERITIES, type Finding, locationText } from "../model.js";
import { escapeHtml as h } from "./escape.js";
import { PAGE_ROWS, SCRIPT, STYLE } from "./html-assets.js";
import { passBar, trendChart, trendPoints } from "./html-charts.js";
import { groupTable, kindTable, notesSection, resolvedSection } from "./html-sections.js";
import { WAIVERS_STYLE, waiverNote, waiversSection } from "./html-waivers.js";
import { type FactCollector, sharedFact } from "./shared-pass.js";
import { Chunker } from "./stream.js";
import type { ReportWriter } from "./types.js";

/** Rows of the findings table at most: a page people open in a browser (the complete list is in findings.csv). */
const HTML_MAX_ROWS = 10_000;

export const htmlWriter: ReportWriter = {
  name: "html",
  render(run) {
    return [{ name: "report.html", chunks: () => renderHtml(run), contentType: "text/html; charset=utf-8" }];
  },
};

function card(label: string, value: number | string, id?: string): string {
  return `<div class="card"${id === undefined ? "" : ` id="${h(id)}"`}><b>${h(String(value))}</b>${h(label)}</div>`;
}

/** Pods and workloads checked per Pod Security level, when any were. */
function podSecurityTable(s: AuditResult["summary"]): string {
  if (s.podSecurity === undefined) return "";
  const rows = Object.entries(s.podSecurity)
    .sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0))
    .map(
      ([lv, c]) =>
        `<tr><td><code>${h(lv)}</code></td><td class="n">${c.pods}</td><td class="n">${c.workloads}</td></tr>`,
    )
    .join("\n");
  return `\n<h2>Pod Security</h2>\n<table id="pod-security"><thead><tr><th>level</th><th>pods checked</th><th>workloads checked</th></tr></thead><tbody>\n${rows}\n</tbody></table>`;
}

/** An admission policy's binding, param and validation index, when the finding has them. */
function bindingText(f: Finding): string {
  const { binding, param, index } = f.rule;
  const parts: string[] = [];
  if (binding !== undefined) parts.push(`binding <code>${h(binding)}</code>`);
  if (param !== undefined) parts.push(`param <code>${h(param)}</code>`);
  if (index !== undefined) parts.push(`validation ${index}`);
  return parts.length === 0 ? "" : `<br>${parts.join(", ")}`;
}

function objectText(f: Finding): string {
  const o = f.object;
  if (o === undefined) return "";
  return `${o.kind} ${o.namespace === undefined ? "" : `${o.namespace}/`}${o.name}`;
}

/** A finding's row; `isNew` marks it as first seen in this run; `hidden` until the reader asks for more rows. */
function rowOf(f: Finding, isNew: boolean, hidden: boolean): string {
  const severity = `${h(f.severity)}${f.ratchet === undefined ? "" : ` (${h(f.ratchet)})`}${waiverNote(f)}${isNew ? '<span class="new">new</span>' : ""}`;
  const policy = `<code>${h([f.rule.family, f.rule.policy].filter((x) => x !== undefined).join(" "))}</code>${f.rule.rule === undefined ? "" : `<br><code>${h(f.rule.rule)}</code>`}${bindingText(f)}`;
  const where = f.location === undefined ? "" : locationText(f.location);
  return `<tr data-severity="${h(f.severity)}"${isNew ? " data-new" : ""}${hidden ? " hidden" : ""}><td class="sev-${h(f.severity)}">${severity}</td><td>${h(objectText(f))}</td><td><code>${h(f.field ?? "")}</code></td><td>${h(f.message)}</td><td>${policy}</td><td>${h(f.team ?? "")}</td><td>${h(f.controller ?? "")}</td><td><code>${h(where)}</code></td><td>${h(f.firstSeen.slice(0, 10))}</td></tr>`;
}

type KindCounts = Map<string, { violation: number; warning: number; total: number }>;

/** Findings by kind, counted before the table (the shared pass). */
const countKinds = sharedFact((_run): FactCollector<KindCounts> => {
  const counts: KindCounts = new Map();
  return {
    finding(f) {
      const k = f.object === undefined ? "(none)" : `${f.object.apiVersion}/${f.object.kind}`;
      let c = counts.get(k);
      if (c === undefined) {
        c = { violation: 0, warning: 0, total: 0 };
        counts.set(k, c);
      }
      if (f.severity === "violation") c.violation++;
      if (f.severity === "warning") c.warning++;
      c.total++;
    },
    result: () => counts,
  };
});

function totalsCards(run: AuditResult, overall: number | undefined): string[] {
  const s = run.summary;
  const cards = [
    card("documents", s.documents, "total-documents"),
    card("valid", s.valid, "total-valid"),
    card("invalid", s.invalid, "total-invalid"),
    card("pass rate", overall === undefined ? "n/a" : `${overall}%`, "total-pass-rate"),
    card("skipped: no policy for the kind", s.skippedUncovered, "total-skipped"),
    card("not Kubernetes objects", s.skippedNotKubernetes),
    card("input errors", s.inputErrors),
    card("violations", s.findings.violation, "total-violations"),
    card("warnings", s.findings.warning, "total-warnings"),
    card("audit findings", s.findings.audit, "total-audit"),
    card("waived", s.findings.waived, "total-waived"),
    card("policy failures", s.policyFailures.error + s.policyFailures.warning),
  ];
  if (s.grandfathered + s.blocking > 0) {
    cards.push(card("grandfathered violations", s.grandfathered), card("blocking violations", s.blocking));
  }
  return cards;
}

function trendSection(run: AuditResult, overall: number | undefined): string {
  const s = run.summary;
  const checked = s.valid + s.invalid;
  const points = trendPoints(run.history ?? [], {
    runId: run.runId,
    findings: s.findings,
    ...(overall !== undefined && { passRate: overall }),
  });
  const c = run.comparison;
  const comparison =
    c === undefined
      ? "<p>No previous run to compare with.</p>"
      : `<p>Compared with run <code>${h(c.previousRunId)}</code>:</p><div class="cards">${card("new findings", c.newFindings, "trend-new")}${card("resolved findings", c.resolvedFindings, "trend-resolved")}${card("persisting findings", c.persistingFindings, "trend-persisting")}</div>`;
  return `<h2>Trend</h2>
<p id="pass-rate">Pass rate (objects checked without violation / objects checked): ${passBar(overall)} (${s.valid} of ${checked})</p>
<h3>Findings by severity, last ${points.length} run(s)</h3>
<div class="scroll">${trendChart(points, FINDING_SEVERITIES)}</div>
${comparison}`;
}

/** The page up to the findings table's rows. */
function head(run: AuditResult, kinds: KindCounts, waivers: string, shown: number, total: number): string {
  const s = run.summary;
  const checked = s.valid + s.invalid;
  const overall = checked === 0 ? undefined : Math.round((1000 * s.valid) / checked) / 10;
  const options = FINDING_SEVERITIES.map((sev) => `<option value="${h(sev)}">${h(sev)}</option>`).join("");
  const th = (label: string) => `<th class="sortable" scope="col">${h(label)}</th>`;
  const g = run.groups;
  return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>tollgate audit ${h(run.runId)}</title>
<style>${STYLE}${WAIVERS_STYLE}</style>
</head>
<body>
<h1>tollgate audit ${h(run.runId)}</h1>
<p class="meta">Started ${h(run.startedAt)}, finished ${h(run.finishedAt)}. Bundle <code>${h(run.bundle.source)}</code> (${run.bundle.kinds} kinds, <code>${h(run.bundle.digest)}</code>${run.bundle.policiesFromInput > 0 ? `, plus ${run.bundle.policiesFromInput} policies from the input` : ""}). Sources: ${run.sources.map((x) => `<code>${h(x)}</code>`).join(", ")}${run.previous === undefined ? "" : `; previous snapshot <code>${h(run.previous)}</code>`}.</p>
<h2>Totals</h2>
<div class="cards">${totalsCards(run, overall).join("")}</div>${podSecurityTable(s)}
${trendSection(run, overall)}${waivers}
<h2>Breakdowns</h2>
<div class="breakdowns">
${groupTable("policy", "by-policy", g.policy, "policies")}
${groupTable("namespace", "by-namespace", g.namespace, "namespaces")}
${groupTable("team", "by-team", g.team, "teams")}
${groupTable("controller", "by-controller", g.controller, "controllers")}
${kindTable(kinds)}
</div>
${resolvedSection(run)}
${notesSection(run)}
<h2>Findings (<span id="shown">${shown}</span> of ${shown})</h2>${shown < total ? `\n<p id="truncated">The table holds the first ${shown} of the run's ${total} findings; every finding is in findings.csv and report.json.</p>` : ""}
<p><input type="search" id="q" placeholder="Search findings: name, field, message, policy..." aria-label="Search findings">
<select id="sev" aria-label="Severity"><option value="">all severities</option>${options}</select>${run.comparison === undefined ? "" : ` <label><input type="checkbox" id="only-new"> new only</label>`}</p>
<div class="scroll"><table id="findings"><colgroup><col style="width:8%"><col style="width:12%"><col style="width:9%"><col style="width:24%"><col style="width:14%"><col style="width:7%"><col style="width:9%"><col style="width:10%"><col style="width:7%"></colgroup><thead><tr>${["severity", "object", "field", "message", "policy and rule", "team", "controller", "location", "first seen"].map(th).join("")}</tr></thead><tbody>
`;
}

/** One pass for the kinds, one for the table's first {@link HTML_MAX_ROWS} rows. */
export async function* renderHtml(run: AuditResult, maxRows = HTML_MAX_ROWS): AsyncGenerator<string> {
  const kinds = await countKinds(run);
  const waivers = await waiversSection(run);
  const total = run.findings.size;
  const shown = Math.min(total, maxRows);
  yield head(run, kinds, waivers, shown, total);
  // New findings are marked only when there was a run to compare with (else every finding is new).
  const compared = run.comparison !== undefined;
  const chunker = new Chunker();
  let n = 0;
  for (const f of run.findings) {
    if (n++ === shown) break;
    const chunk = chunker.push(
      `${n === 1 ? "" : "\n"}${rowOf(f, compared && f.firstSeen === run.startedAt, n > PAGE_ROWS)}`,
    );
    if (chunk !== undefined) yield chunk;
  }
  yield `${chunker.take()}
</tbody></table></div>
<p><button id="more" type="button"${shown > PAGE_ROWS ? "" : " hidden"}>Show ${Math.min(PAGE_ROWS, shown - PAGE_ROWS)} more of the ${Math.max(0, shown - PAGE_ROWS)} not shown</button></p>
<script>${SCRIPT}</script>
</body>
</html>
`;
}
