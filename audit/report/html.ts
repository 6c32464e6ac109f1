/**
 * report.html: a self-contained page for people: totals, the trend against the previous run, breakdowns by policy,
 * kind, namespace and owner, and a searchable findings table. No external assets (a Content-Security-Policy forbids
 * any), and every untrusted text (names, messages, rule texts, paths) is HTML-escaped; the inline script only shows
 * and hides rows already rendered.
 */
import { type AuditResult, FINDING_SEVERITIES, type Finding, type FindingSeverity, locationText } from "../model.js";
import { escapeHtml as h } from "./escape.js";
import { WAIVERS_STYLE, waiverNote, waiversSection } from "./html-waivers.js";
import { Chunker } from "./stream.js";
import type { ReportWriter } from "./types.js";

const STYLE = `
body{font:14px/1.4 system-ui,sans-serif;margin:2rem;color:#1b1f24;background:#fff}
h1{font-size:1.4rem}h2{font-size:1.1rem;margin-top:2rem}
.meta{color:#555}
.cards{display:flex;flex-wrap:wrap;gap:.75rem}
.card{border:1px solid #d0d7de;border-radius:6px;padding:.5rem .9rem;min-width:7rem}
.card b{display:block;font-size:1.4rem}
table{border-collapse:collapse;width:100%;margin:.5rem 0}
th,td{border-bottom:1px solid #d0d7de;padding:.25rem .5rem;text-align:left;vertical-align:top}
th{background:#f6f8fa}
td.n{text-align:right}
.sev-violation,.sev-template-annotation-failure,.sev-input-error,.sev-policy-failure{color:#b42318;font-weight:600}
.sev-warning{color:#9a6700}.sev-audit{color:#0969da}.sev-shadow{color:#57606a}
.breakdowns{display:grid;grid-template-columns:repeat(auto-fit,minmax(22rem,1fr));gap:1rem}
input[type=search]{width:100%;max-width:40rem;padding:.4rem;font:inherit}
code{font-size:.9em;word-break:break-all}
${WAIVERS_STYLE}`;

const SCRIPT = `
(function(){
  var q=document.getElementById("q"),s=document.getElementById("sev"),rows=document.querySelectorAll("#findings tbody tr"),n=document.getElementById("shown");
  function apply(){
    var t=q.value.toLowerCase(),v=s.value,c=0;
    for(var i=0;i<rows.length;i++){
      var r=rows[i],ok=(v===""||r.getAttribute("data-severity")===v)&&(t===""||r.textContent.toLowerCase().indexOf(t)>=0);
      r.hidden=!ok;if(ok)c++;
    }
    n.textContent=String(c);
  }
  q.addEventListener("input",apply);s.addEventListener("change",apply);apply();
})();
`;

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

type Key = (f: Finding) => string | undefined;
type Counts = Map<string, Record<FindingSeverity, number>>;

const BREAKDOWNS: ReadonlyArray<[string, Key]> = [
  [
    "policy",
    (f) =>
      f.severity === "input-error" ? "input" : [f.rule.family, f.rule.policy].filter((x) => x !== undefined).join(" "),
  ],
  ["kind", (f) => (f.object === undefined ? undefined : `${f.object.apiVersion}/${f.object.kind}`)],
  ["namespace", (f) => f.object?.namespace],
  ["owner", (f) => f.owner],
];

function tally(counts: Counts, k: string, severity: FindingSeverity): void {
  let c = counts.get(k);
  if (c === undefined) {
    c = Object.fromEntries(FINDING_SEVERITIES.map((s) => [s, 0])) as Record<FindingSeverity, number>;
    counts.set(k, c);
  }
  c[severity]++;
}

function breakdown(title: string, counts: Counts): string {
  const rows = [...counts.entries()]
    .map(([k, c]) => ({ k, c, total: FINDING_SEVERITIES.reduce((n, s) => n + c[s], 0) }))
    .sort((a, b) => b.total - a.total || (a.k < b.k ? -1 : 1));
  const body = rows
    .map(
      (r) =>
        `<tr><td><code>${h(r.k)}</code></td><td class="n">${r.c.violation}</td><td class="n">${r.c.warning}</td><td class="n">${r.total}</td></tr>`,
    )
    .join("\n");
  return `<section><h3>By ${h(title)}</h3><table class="breakdown" data-by="${h(title)}"><thead><tr><th>${h(title)}</th><th>violations</th><th>warnings</th><th>all findings</th></tr></thead><tbody>
${body}
</tbody></table></section>`;
}

function objectText(f: Finding): string {
  const o = f.object;
  if (o === undefined) return "";
  return `${o.kind} ${o.namespace === undefined ? "" : `${o.namespace}/`}${o.name}`;
}

function rowOf(f: Finding): string {
  return `<tr data-severity="${h(f.severity)}"><td class="sev-${h(f.severity)}">${h(f.severity)}${f.ratchet === undefined ? "" : ` (${h(f.ratchet)})`}${waiverNote(f)}</td><td>${h(objectText(f))}</td><td><code>${h(f.field ?? "")}</code></td><td>${h(f.message)}</td><td><code>${h([f.rule.family, f.rule.policy].filter((x) => x !== undefined).join(" "))}</code>${f.rule.rule === undefined ? "" : `<br><code>${h(f.rule.rule)}</code>`}${bindingText(f)}</td><td>${h(f.owner ?? "")}</td><td><code>${h(f.location === undefined ? "" : locationText(f.location))}</code></td><td>${h(f.firstSeen.slice(0, 10))}</td></tr>`;
}

/** One pass for the breakdowns, one for the table's first {@link HTML_MAX_ROWS} rows. */
export async function* renderHtml(run: AuditResult, maxRows = HTML_MAX_ROWS): AsyncGenerator<string> {
  const tallies = BREAKDOWNS.map(([title, key]) => ({ title, key, counts: new Map() as Counts }));
  for (const f of run.findings) {
    for (const t of tallies) tally(t.counts, t.key(f) ?? "(none)", f.severity);
  }
  const total = run.findings.size;
  const shown = Math.min(total, maxRows);
  const s = run.summary;
  const cards = [
    card("documents", s.documents, "total-documents"),
    card("valid", s.valid, "total-valid"),
    card("invalid", s.invalid, "total-invalid"),
    card("skipped: no policy for the kind", s.skippedUncovered, "total-skipped"),
    card("not Kubernetes objects", s.skippedNotKubernetes),
    card("input errors", s.inputErrors),
    card("violations", s.findings.violation, "total-violations"),
    card("warnings", s.findings.warning),
    card("audit findings", s.findings.audit),
    card("waived", s.findings.waived, "total-waived"),
    card("policy failures", s.policyFailures.error + s.policyFailures.warning),
  ];
  if (s.grandfathered + s.blocking > 0) {
    cards.push(card("grandfathered violations", s.grandfathered), card("blocking violations", s.blocking));
  }
  const c = run.comparison;
  const trend =
    c === undefined
      ? "<p>No previous run to compare with.</p>"
      : `<p>Compared with run <code>${h(c.previousRunId)}</code>:</p><div class="cards">${card("new findings", c.newFindings, "trend-new")}${card("resolved findings", c.resolvedFindings, "trend-resolved")}${card("persisting findings", c.persistingFindings, "trend-persisting")}</div>`;
  const skipped = Object.entries(s.skippedByKind)
    .sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))
    .map(([k, n]) => `<tr><td><code>${h(k)}</code></td><td class="n">${n}</td></tr>`)
    .join("\n");
  const options = FINDING_SEVERITIES.map((sev) => `<option value="${h(sev)}">${h(sev)}</option>`).join("");
  yield `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>tollgate audit ${h(run.runId)}</title>
<style>${STYLE}</style>
</head>
<body>
<h1>tollgate audit ${h(run.runId)}</h1>
<p class="meta">Started ${h(run.startedAt)}, finished ${h(run.finishedAt)}. Bundle <code>${h(run.bundle.source)}</code> (${run.bundle.kinds} kinds, <code>${h(run.bundle.digest)}</code>${run.bundle.policiesFromInput > 0 ? `, plus ${run.bundle.policiesFromInput} policies from the input` : ""}). Sources: ${run.sources.map((x) => `<code>${h(x)}</code>`).join(", ")}${run.previous === undefined ? "" : `; previous snapshot <code>${h(run.previous)}</code>`}.</p>
<h2>Totals</h2>
<div class="cards">${cards.join("")}</div>${podSecurityTable(s)}
<h2>Trend</h2>
${trend}${waiversSection(run)}
<h2>Breakdowns</h2>
<div class="breakdowns">
${tallies.map((t) => breakdown(t.title, t.counts)).join("\n")}
</div>
<h2>Skipped: no policy covers the kind</h2>
${skipped === "" ? "<p>None.</p>" : `<table><thead><tr><th>kind</th><th>objects</th></tr></thead><tbody>\n${skipped}\n</tbody></table>`}
<h2>Findings (<span id="shown">${shown}</span> of ${shown})</h2>${shown < total ? `\n<p id="truncated">The table holds the first ${shown} of the run's ${total} findings; every finding is in findings.csv and report.json.</p>` : ""}
<p><input type="search" id="q" placeholder="Search findings: name, field, message, policy..." aria-label="Search findings">
<select id="sev" aria-label="Severity"><option value="">all severities</option>${options}</select></p>
<table id="findings"><thead><tr><th>severity</th><th>object</th><th>field</th><th>message</th><th>policy and rule</th><th>owner</th><th>location</th><th>first seen</th></tr></thead><tbody>
`;
  const chunker = new Chunker();
  let n = 0;
  for (const f of run.findings) {
    if (n++ === shown) break;
    const chunk = chunker.push(`${n === 1 ? "" : "\n"}${rowOf(f)}`);
    if (chunk !== undefined) yield chunk;
  }
  yield `${chunker.take()}
</tbody></table>
<script>${SCRIPT}</script>
</body>
</html>
`;
}
