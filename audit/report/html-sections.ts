/**
 * Sections of the HTML report built from the run's header and groups (no pass over the findings): the group-by
 * tables with pass rates, the resolved findings, and the notes (documents the bundle loader ignored, kinds no policy
 * covers), shown as notes, never as failures. Every untrusted text is HTML-escaped.
 */
import { type GroupCounts, passRate } from "../groups.js";
import type { AuditResult, Finding } from "../model.js";
import { escapeHtml as h } from "./escape.js";
import { passBar } from "./html-charts.js";

/** Rows of a group-by table at most (the largest groups by findings; every group is in report.json's findings). */
export const GROUP_ROWS = 200;
/** Resolved findings listed at most. */
export const RESOLVED_ROWS = 1000;
/** Notes listed at most. */
export const NOTE_ROWS = 200;

function total(c: GroupCounts): number {
  let n = 0;
  for (const v of Object.values(c.findings)) n += v;
  return n;
}

function th(label: string): string {
  return `<th class="sortable" scope="col">${h(label)}</th>`;
}

/** A group-by table: findings by severity, objects checked and the pass rate; sortable. */
export function groupTable(title: string, id: string, groups: Record<string, GroupCounts>, noun: string): string {
  const all = Object.entries(groups).sort((a, b) => total(b[1]) - total(a[1]) || (a[0] < b[0] ? -1 : 1));
  const rows = all.slice(0, GROUP_ROWS).map(([k, c]) => {
    const rate = passRate(c);
    return `<tr><td><code>${h(k)}</code></td><td class="n">${c.findings.violation ?? 0}</td><td class="n">${c.findings.warning ?? 0}</td><td class="n">${total(c)}</td><td class="n">${c.checked}</td><td data-sort="${rate ?? -1}">${passBar(rate)}</td></tr>`;
  });
  const cut =
    all.length > GROUP_ROWS
      ? `<p class="notes">The ${GROUP_ROWS} ${h(noun)} with the most findings of ${all.length}.</p>`
      : "";
  const body = rows.length === 0 ? `<tr><td colspan="6">None.</td></tr>` : rows.join("\n");
  return `<section><h3>By ${h(title)}</h3><div class="scroll"><table class="breakdown" id="${h(id)}" data-by="${h(title)}"><thead><tr>${th(title)}${th("violations")}${th("warnings")}${th("findings")}${th("checked")}${th("pass rate")}</tr></thead><tbody>
${body}
</tbody></table></div>${cut}</section>`;
}

/** Findings by kind (the run's groups do not count kinds: counted from the findings by the caller). */
export function kindTable(counts: ReadonlyMap<string, { violation: number; warning: number; total: number }>): string {
  const rows = [...counts.entries()]
    .sort((a, b) => b[1].total - a[1].total || (a[0] < b[0] ? -1 : 1))
    .slice(0, GROUP_ROWS)
    .map(
      ([k, c]) =>
        `<tr><td><code>${h(k)}</code></td><td class="n">${c.violation}</td><td class="n">${c.warning}</td><td class="n">${c.total}</td></tr>`,
    );
  return `<section><h3>By kind</h3><div class="scroll"><table class="breakdown" id="by-kind" data-by="kind"><thead><tr>${th("kind")}${th("violations")}${th("warnings")}${th("findings")}</tr></thead><tbody>
${rows.length === 0 ? `<tr><td colspan="4">None.</td></tr>` : rows.join("\n")}
</tbody></table></div></section>`;
}

function objectText(o: Finding["object"]): string {
  if (o === undefined) return "";
  return `${o.kind} ${o.namespace === undefined ? "" : `${o.namespace}/`}${o.name}`;
}

/** The findings of the previous run that this run no longer has. */
export function resolvedSection(run: AuditResult): string {
  const c = run.comparison;
  if (c === undefined) return "";
  if (c.resolved.length === 0)
    return `<h2>Resolved findings</h2>\n<p id="resolved-none">None since the previous run.</p>`;
  const rows = c.resolved
    .slice(0, RESOLVED_ROWS)
    .map(
      (f) =>
        `<tr><td class="sev-${h(f.severity)}">${h(f.severity)}</td><td>${h(objectText(f.object))}</td><td><code>${h(f.field ?? "")}</code></td><td>${h(f.message)}</td><td><code>${h(f.id)}</code></td></tr>`,
    )
    .join("\n");
  const cut =
    c.resolved.length > RESOLVED_ROWS
      ? `<p class="notes">The first ${RESOLVED_ROWS} of ${c.resolved.length}; all are in report.json's comparison.</p>`
      : "";
  return `<h2>Resolved findings (${c.resolved.length})</h2>
<p>In run <code>${h(c.previousRunId)}</code>, not in this one.</p>
<div class="scroll"><table id="resolved"><thead><tr>${th("severity")}${th("object")}${th("field")}${th("message")}${th("finding id")}</tr></thead><tbody>
${rows}
</tbody></table></div>${cut}`;
}

/** Notes: what the bundle loader ignored and the kinds no policy covers. Neither is a failure. */
export function notesSection(run: AuditResult): string {
  const items: string[] = [];
  for (const n of (run.notes ?? []).slice(0, NOTE_ROWS)) {
    const where = [
      n.file,
      n.document === undefined ? undefined : `#${n.document}`,
      n.path === undefined ? undefined : ` ${n.path}`,
    ]
      .filter((x) => x !== undefined)
      .join("");
    items.push(`<li class="note">${where === "" ? "" : `<code>${h(where)}</code>: `}${h(n.message)}</li>`);
  }
  const more = (run.notes?.length ?? 0) - NOTE_ROWS;
  if (more > 0) items.push(`<li class="note">and ${more} more notes of the same kind</li>`);
  const skipped = Object.entries(run.summary.skippedByKind)
    .sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))
    .map(([k, n]) => `<tr><td><code>${h(k)}</code></td><td class="n">${n}</td></tr>`)
    .join("\n");
  const ignored =
    items.length === 0
      ? ""
      : `<p>Documents and files the bundle loader ignored:</p>\n<ul id="notes">${items.join("")}</ul>`;
  const kinds =
    skipped === ""
      ? "<p>Every object's kind is covered by a policy.</p>"
      : `<p>Objects of kinds no policy covers (counted as skipped, never as passed):</p>\n<table id="skipped-kinds"><thead><tr>${th("kind")}${th("objects")}</tr></thead><tbody>\n${skipped}\n</tbody></table>`;
  return `<h2>Notes</h2>\n<div class="notes">${ignored}\n${kinds}</div>`;
}
