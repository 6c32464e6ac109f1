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
import { sharedProduct } from "./shared-pass.js";
import { ByteChunker, policyFailures } from "./stream.js";
import type { ReportWriter } from "./types.js";

const x = escapeXml;

export const junitWriter: ReportWriter = {
  name: "junit",
  render(run) {
    junitBody.want(run);
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

/** A document's case. */
function caseOf(o: ObjectRecord, found: readonly Finding[]): Case {
  const suite = o.location.entry === undefined ? o.location.file : `${o.location.file}!${o.location.entry}`;
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

/** A suite: its name, its counts, and where its cases end in the cases' text. */
interface Suite {
  name: string;
  counts: Counts;
  end: number;
}

/**
 * Suites need their counts before their cases: the shared pass renders the cases (one text for all suites) and
 * counts each suite, whose cases are then written after its counts. A suite is a run of documents of one file, in
 * input order.
 */
const junitBody = sharedProduct((pass) => {
  const total: Counts = { tests: 0, failures: 0, errors: 0, skipped: 0 };
  const suites: Suite[] = [];
  const cases = pass.textSpool();
  let suite: Suite | undefined;
  return {
    object(record: ObjectRecord, findings: readonly Finding[]) {
      const k = caseOf(record, findings);
      if (k.suite !== suite?.name) {
        if (suite !== undefined) suite.end = cases.bytes;
        suite = { name: k.suite, counts: { tests: 0, failures: 0, errors: 0, skipped: 0 }, end: 0 };
        suites.push(suite);
      }
      cases.append(`${k.xml}\n`);
      count(suite.counts, k);
      count(total, k);
    },
    result() {
      if (suite !== undefined) suite.end = cases.bytes;
      return { total, suites, cases };
    },
  };
});

async function* junitChunks(run: AuditResult): AsyncGenerator<string | Uint8Array> {
  const failures = policyFailures(run);
  const body = await junitBody(run);
  const total: Counts = { ...body.total };
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

  let head = '<?xml version="1.0" encoding="UTF-8"?>\n';
  head += `<testsuites name="tollgate audit ${x(run.runId)}" ${attributes(total)} time="${(run.summary.durationMs / 1000).toFixed(3)}" timestamp="${x(run.startedAt)}">\n`;
  if (policyCases.length > 0) {
    head += `  <testsuite name="policies" tests="${policyCases.length}" failures="0" errors="${policyErrors}" skipped="0">\n${policyCases.map((c) => c.xml).join("\n")}\n  </testsuite>\n`;
  }
  const out = new ByteChunker();
  yield* out.push(head);
  let start = 0;
  for (const suite of body.suites) {
    yield* out.push(`  <testsuite name="${x(suite.name)}" ${attributes(suite.counts)}>\n`);
    for await (const piece of body.cases.chunks(start, suite.end)) yield* out.push(piece);
    yield* out.push("  </testsuite>\n");
    start = suite.end;
  }
  yield* out.push("</testsuites>\n");
  yield out.take();
}
