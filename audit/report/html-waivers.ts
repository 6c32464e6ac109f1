/**
 * The waivers part of report.html: the waivers in force (owner, expiry, reason, ticket, what each waived), with
 * expiring waivers highlighted and expired and unused ones marked, then the waived findings with their waiver's
 * owner and expiry. Every text is HTML-escaped; nothing is fetched.
 */
import type { AuditResult, Finding, WaiverRecord } from "../model.js";
import { escapeHtml as h } from "./escape.js";
import { type FactCollector, sharedFact } from "./shared-pass.js";

/** Rows of the waived findings table at most (every waived finding is in findings.csv and report.json). */
const WAIVED_MAX_ROWS = 2_000;

export const WAIVERS_STYLE = `
tr.waiver-expiring td{background:#fff8c5}
tr.waiver-expired td{background:#ffebe9}
.standing-expiring{color:#9a6700;font-weight:600}.standing-expired{color:#b42318;font-weight:600}
.sev-waived{color:#57606a;font-style:italic}
.waiver-note{color:#57606a;font-size:.9em}
`;

/** What a findings-table row says of the finding's waiver: who waived it until when, or that the waiver expired. */
export function waiverNote(f: Finding): string {
  const w = f.waiver;
  if (w === undefined) return "";
  if (w.expired === true) {
    return `<br><span class="waiver-note">waiver <code>${h(w.name)}</code> expired ${h(w.expires)}: no longer waived</span>`;
  }
  return `<br><span class="waiver-note">${h(w.severity ?? "")} waived by <code>${h(w.name)}</code> (${h(w.owner)}, until ${h(w.expires)})</span>`;
}

function standingText(w: WaiverRecord): string {
  const unused = w.waived + w.lapsed === 0 ? ", unused" : "";
  return `<span class="standing-${h(w.standing)}">${h(w.standing)}</span>${unused}`;
}

function waiverRow(w: WaiverRecord): string {
  return `<tr class="waiver-${h(w.standing)}" data-waiver="${h(w.name)}"><td><code>${h(w.name)}</code></td><td><code>${h(w.policy)}</code>${w.rule === undefined ? "" : `<br><code>${h(w.rule)}</code>`}</td><td>${h(w.owner)}</td><td>${h(w.expires)}</td><td>${standingText(w)}</td><td>${h(w.reason)}</td><td>${h(w.ticket ?? "")}</td><td class="n">${w.waived}</td><td class="n">${w.lapsed}</td></tr>`;
}

function waivedRow(f: Finding): string {
  const o = f.object;
  const object = o === undefined ? "" : `${o.kind} ${o.namespace === undefined ? "" : `${o.namespace}/`}${o.name}`;
  const w = f.waiver!;
  return `<tr><td>${h(w.severity ?? "")}</td><td>${h(object)}</td><td><code>${h(f.field ?? "")}</code></td><td>${h(f.message)}</td><td><code>${h(w.name)}</code></td><td>${h(w.owner)}</td><td>${h(w.expires)}</td></tr>`;
}

/** The first {@link WAIVED_MAX_ROWS} waived findings' rows and how many findings were waived (the shared pass). */
const waivedRows = sharedFact((_run): FactCollector<{ rows: string[]; waived: number }> => {
  const rows: string[] = [];
  let waived = 0;
  return {
    finding(f) {
      if (f.severity !== "waived" || f.waiver === undefined) return;
      if (waived++ < WAIVED_MAX_ROWS) rows.push(waivedRow(f));
    },
    result: () => ({ rows, waived }),
  };
});

/** The section, or nothing when the run had no waivers. */
export async function waiversSection(run: AuditResult): Promise<string> {
  const list = run.waivers;
  if (list === undefined || list.length === 0) return "";
  const s = run.summary.waivers;
  const counts =
    s === undefined
      ? ""
      : `<p>${s.total} waivers: ${s.active} active, ${s.expiring} expiring soon, ${s.expired} expired, ${s.unused} unused.</p>`;
  const { rows, waived } = await waivedRows(run);
  const more =
    waived > rows.length
      ? `\n<p>The table holds the first ${rows.length} of ${waived} waived findings; every one is in findings.csv.</p>`
      : "";
  return `
<h2>Waivers</h2>
${counts}
<table id="waivers"><thead><tr><th>waiver</th><th>policy and rule</th><th>owner</th><th>expires</th><th>standing</th><th>reason</th><th>ticket</th><th>waived</th><th>no longer waived</th></tr></thead><tbody>
${list.map(waiverRow).join("\n")}
</tbody></table>
<h3>Waived findings (${waived})</h3>${more}
${rows.length === 0 ? "<p>None.</p>" : `<table id="waived"><thead><tr><th>severity without the waiver</th><th>object</th><th>field</th><th>message</th><th>waiver</th><th>owner</th><th>expires</th></tr></thead><tbody>\n${rows.join("\n")}\n</tbody></table>`}`;
}
