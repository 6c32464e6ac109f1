/**
 * junit.xml, for CI systems: one test suite per file (or archive member), one test case per document. A case fails
 * with the object's violations (one `<failure>` each), errors for a document that cannot be read, and is skipped
 * when no policy covers its kind. Warnings, audit findings and shadowed results go to `<system-out>`. A case whose
 * only results are waived (and notes) is skipped, its message naming each waiver, its owner and its expiry; beside a
 * failure, waived results are notes. Policy failures are a suite of their own.
 */
import type { AuditResult, Finding, ObjectRecord } from "../model.js";
import { locationText } from "../model.js";
import { escapeXml } from "./escape.js";
import { sharedFact } from "./shared-pass.js";
import { Chunker, objectsWithFindings, policyFailures } from "./stream.js";
import type { ReportWriter } from "./types.js";

const x = escapeXml;

export const junitWriter: ReportWriter = {
  name: "junit",
  render(run) {
    return [{ name: "junit.xml", chunks: () => junitChunks(run), contentType: "application/xml" }];
  },
};

interface Case {
  /** The suite: the file, or `file!entry` for an archive member or S3 key. */
  suite: string;
  xml: string;
  failure: boolean;
  error: boolean;
  skipped: boolean;
}

/** A document's case; `countOnly` (the shared pass) leaves its XML empty. */
function caseOf(o: ObjectRecord, found: readonly Finding[], countOnly = false): Case {
  const suite = o.location.entry === undefined ? o.location.file : `${o.location.file}!${o.location.entry}`;
  if (countOnly) return { suite, xml: "", ...caseFlags(o, found) };
  const name =
    o.object === undefined
      ? locationText(o.location)
      : `${o.object.kind} ${o.object.namespace === undefined ? "" : `${o.object.namespace}/`}${o.object.name}`;
  const classname = o.object === undefined ? "document" : `${o.object.apiVersion}/${o.object.kind}`;
  const inner: string[] = [];
  const notes: string[] = [];
  const waived: string[] = [];
  let failure = false;
  let error = false;
  for (const f of found) {
    const text = f.field === undefined ? f.message : `${f.field}: ${f.message}`;
    if (f.severity === "waived" && f.waiver !== undefined) {
      const w = f.waiver;
      waived.push(`waived by ${w.name} (owner ${w.owner}, expires ${w.expires}): ${text}`);
      continue;
    }
    if (f.severity === "input-error") {
      inner.push(`      <error type="input-error" message="${x(text)}"/>`);
      error = true;
    } else if (f.severity === "violation" || f.severity === "template-annotation-failure") {
      const ratchet = f.ratchet === undefined ? "" : ` (${f.ratchet})`;
      const lapsed = f.waiver?.expired === true ? ` (waiver ${f.waiver.name} expired ${f.waiver.expires})` : "";
      inner.push(`      <failure type="${x(f.severity)}" message="${x(text + ratchet + lapsed)}"/>`);
      failure = true;
    } else notes.push(`${f.severity}: ${text}`);
  }
  const onlyWaived = waived.length > 0 && !failure && !error;
  const skipped = o.outcome === "skipped" || o.outcome === "not-kubernetes" || onlyWaived;
  if (o.outcome === "skipped") inner.push(`      <skipped message="${x(`no policy for ${classname}`)}"/>`);
  else if (o.outcome === "not-kubernetes") inner.push(`      <skipped message="not a Kubernetes object"/>`);
  else if (onlyWaived) inner.push(`      <skipped message="${x(waived.join("; "))}"/>`);
  else for (const w of waived) notes.push(w);
  if (notes.length > 0) inner.push(`      <system-out>${x(notes.join("\n"))}</system-out>`);
  const line = o.location.line === undefined ? "" : ` line="${o.location.line}"`;
  const open = `    <testcase classname="${x(classname)}" name="${x(name)}" file="${x(suite)}"${line}`;
  const xml = inner.length === 0 ? `${open}/>` : `${open}>\n${inner.join("\n")}\n    </testcase>`;
  return { suite, xml, failure, error: error && !failure, skipped };
}

/** caseOf's flags alone (the shared pass counts cases without writing them). */
function caseFlags(o: ObjectRecord, found: readonly Finding[]): Pick<Case, "failure" | "error" | "skipped"> {
  let failure = false;
  let error = false;
  let waived = false;
  for (const f of found) {
    if (f.severity === "waived" && f.waiver !== undefined) waived = true;
    else if (f.severity === "input-error") error = true;
    else if (f.severity === "violation" || f.severity === "template-annotation-failure") failure = true;
  }
  const onlyWaived = waived && !failure && !error;
  const skipped = o.outcome === "skipped" || o.outcome === "not-kubernetes" || onlyWaived;
  return { failure, error: error && !failure, skipped };
}

interface Counts {
  tests: number;
  failures: number;
  errors: number;
  skipped: number;
}

function count(c: Counts, k: Case): void {
  c.tests++;
  if (k.failure) c.failures++;
  else if (k.error) c.errors++;
  if (k.skipped) c.skipped++;
}

function attributes(c: Counts): string {
  return `tests="${c.tests}" failures="${c.failures}" errors="${c.errors}" skipped="${c.skipped}"`;
}

/**
 * Suites need their counts before their cases: the shared pass counts them (a number per file), the writing reads
 * the documents again. A suite is a run of documents of one file, in input order.
 */
const suiteCounts = sharedFact((_run) => {
  const total: Counts = { tests: 0, failures: 0, errors: 0, skipped: 0 };
  const suites: Counts[] = [];
  let suite: string | undefined;
  return {
    object(record: ObjectRecord, findings: readonly Finding[]) {
      const k = caseOf(record, findings, true);
      if (k.suite !== suite) {
        suite = k.suite;
        suites.push({ tests: 0, failures: 0, errors: 0, skipped: 0 });
      }
      count(suites[suites.length - 1]!, k);
      count(total, k);
    },
    result: () => ({ total, suites }),
  };
});

async function* junitChunks(run: AuditResult): AsyncGenerator<string> {
  const failures = policyFailures(run);
  const counted = suiteCounts(run);
  const total: Counts = { ...counted.total };
  const suites = counted.suites;
  const policyCases = failures.map((f) => {
    const name = `${f.location === undefined ? "bundle" : locationText(f.location)} ${f.field ?? ""}`.trim();
    const isError = f.type !== "warning";
    return {
      isError,
      xml: `    <testcase classname="policies" name="${x(name)}">\n${
        isError
          ? `      <error type="policy-failure" message="${x(f.message)}"/>\n`
          : `      <system-out>${x(`warning: ${f.message}`)}</system-out>\n`
      }    </testcase>`,
    };
  });
  const policyErrors = policyCases.filter((c) => c.isError).length;
  total.tests += policyCases.length;
  total.errors += policyErrors;

  const chunker = new Chunker();
  chunker.push('<?xml version="1.0" encoding="UTF-8"?>\n');
  chunker.push(
    `<testsuites name="tollgate audit ${x(run.runId)}" ${attributes(total)} time="${(run.summary.durationMs / 1000).toFixed(3)}" timestamp="${x(run.startedAt)}">\n`,
  );
  if (policyCases.length > 0) {
    chunker.push(
      `  <testsuite name="policies" tests="${policyCases.length}" failures="0" errors="${policyErrors}" skipped="0">\n${policyCases.map((c) => c.xml).join("\n")}\n  </testsuite>\n`,
    );
  }
  let suite: string | undefined;
  let index = -1;
  for (const { record, findings } of objectsWithFindings(run)) {
    const k = caseOf(record, findings);
    if (k.suite !== suite) {
      if (suite !== undefined) chunker.push("  </testsuite>\n");
      suite = k.suite;
      index++;
      chunker.push(`  <testsuite name="${x(k.suite)}" ${attributes(suites[index]!)}>\n`);
    }
    const chunk = chunker.push(`${k.xml}\n`);
    if (chunk !== undefined) yield chunk;
  }
  if (suite !== undefined) chunker.push("  </testsuite>\n");
  chunker.push("</testsuites>\n");
  yield chunker.take();
}
