/**
 * junit.xml, for CI systems: one test suite per file (or archive member), one test case per document. A case fails
 * with the object's violations (one `<failure>` each), errors for a document that cannot be read, and is skipped
 * when no policy covers its kind. Warnings and shadowed results go to `<system-out>`. Policy failures are a suite of
 * their own.
 */
import type { AuditRun, Finding, ObjectRecord } from "../model.js";
import { locationText } from "../model.js";
import { escapeXml } from "./escape.js";
import type { ReportWriter } from "./types.js";

const x = escapeXml;

export const junitWriter: ReportWriter = {
  name: "junit",
  render(run) {
    return [{ name: "junit.xml", content: renderJunit(run), contentType: "application/xml" }];
  },
};

function renderJunit(run: AuditRun): string {
  // Findings of each document, in order: the objects and findings lists are both in input order.
  const byDoc = new Map<string, Finding[]>();
  const policyFailures: Finding[] = [];
  for (const f of run.findings) {
    if (f.severity === "policy-failure") {
      policyFailures.push(f);
      continue;
    }
    if (f.location === undefined) continue;
    const key = locationText(f.location);
    const list = byDoc.get(key);
    if (list === undefined) byDoc.set(key, [f]);
    else list.push(f);
  }
  const suites = new Map<string, ObjectRecord[]>();
  for (const o of run.objects) {
    const file = o.location.entry === undefined ? o.location.file : `${o.location.file}!${o.location.entry}`;
    const list = suites.get(file);
    if (list === undefined) suites.set(file, [o]);
    else list.push(o);
  }

  const out: string[] = [];
  let tests = 0;
  let failures = 0;
  let errors = 0;
  let skipped = 0;
  const body: string[] = [];
  if (policyFailures.length > 0) {
    const cases = policyFailures.map((f) => {
      const name = `${f.location === undefined ? "bundle" : locationText(f.location)} ${f.field ?? ""}`.trim();
      const isError = f.type !== "warning";
      return `    <testcase classname="policies" name="${x(name)}">\n${
        isError
          ? `      <error type="policy-failure" message="${x(f.message)}"/>\n`
          : `      <system-out>${x(`warning: ${f.message}`)}</system-out>\n`
      }    </testcase>`;
    });
    const errorCount = policyFailures.filter((f) => f.type !== "warning").length;
    tests += policyFailures.length;
    errors += errorCount;
    body.push(
      `  <testsuite name="policies" tests="${policyFailures.length}" failures="0" errors="${errorCount}" skipped="0">\n${cases.join("\n")}\n  </testsuite>`,
    );
  }
  for (const [file, records] of suites) {
    let sf = 0;
    let se = 0;
    let ss = 0;
    const cases: string[] = [];
    for (const o of records) {
      const name =
        o.object === undefined
          ? locationText(o.location)
          : `${o.object.kind} ${o.object.namespace === undefined ? "" : `${o.object.namespace}/`}${o.object.name}`;
      const classname = o.object === undefined ? "document" : `${o.object.apiVersion}/${o.object.kind}`;
      const found = byDoc.get(locationText(o.location)) ?? [];
      const inner: string[] = [];
      const notes: string[] = [];
      for (const f of found) {
        const text = f.field === undefined ? f.message : `${f.field}: ${f.message}`;
        if (f.severity === "input-error") inner.push(`      <error type="input-error" message="${x(text)}"/>`);
        else if (f.severity === "violation" || f.severity === "template-annotation-failure") {
          const ratchet = f.ratchet === undefined ? "" : ` (${f.ratchet})`;
          inner.push(`      <failure type="${x(f.severity)}" message="${x(text + ratchet)}"/>`);
        } else notes.push(`${f.severity}: ${text}`);
      }
      if (o.outcome === "skipped") {
        inner.push(`      <skipped message="${x(`no policy for ${classname}`)}"/>`);
        ss++;
      } else if (o.outcome === "not-kubernetes") {
        inner.push(`      <skipped message="not a Kubernetes object"/>`);
        ss++;
      }
      if (inner.some((l) => l.includes("<failure"))) sf++;
      else if (inner.some((l) => l.includes("<error"))) se++;
      if (notes.length > 0) inner.push(`      <system-out>${x(notes.join("\n"))}</system-out>`);
      const line = o.location.line === undefined ? "" : ` line="${o.location.line}"`;
      cases.push(
        inner.length === 0
          ? `    <testcase classname="${x(classname)}" name="${x(name)}" file="${x(file)}"${line}/>`
          : `    <testcase classname="${x(classname)}" name="${x(name)}" file="${x(file)}"${line}>\n${inner.join("\n")}\n    </testcase>`,
      );
    }
    tests += records.length;
    failures += sf;
    errors += se;
    skipped += ss;
    body.push(
      `  <testsuite name="${x(file)}" tests="${records.length}" failures="${sf}" errors="${se}" skipped="${ss}">\n${cases.join("\n")}\n  </testsuite>`,
    );
  }
  out.push('<?xml version="1.0" encoding="UTF-8"?>');
  out.push(
    `<testsuites name="tollgate audit ${x(run.runId)}" tests="${tests}" failures="${failures}" errors="${errors}" skipped="${skipped}" time="${(run.summary.durationMs / 1000).toFixed(3)}" timestamp="${x(run.startedAt)}">`,
  );
  out.push(...body);
  out.push("</testsuites>");
  return `${out.join("\n")}\n`;
}
