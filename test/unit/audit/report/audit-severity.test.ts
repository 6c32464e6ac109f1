/**
 * The `audit` finding severity (results the API server only records: Pod Security's audit level, a
 * ValidatingAdmissionPolicy's Audit action) in every report format, the summary, `--fail-on`, the objects' audit
 * annotations, and the admission-policy rule references (binding, param, index).
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { findingsFromVerdict } from "../../../../audit/findings.js";
import { type AuditResult, type Summary, summaryReachesFailOn } from "../../../../audit/model.js";
import { disposeResult } from "../../../../audit/recorder.js";
import { renderReports } from "../../../../audit/report/index.js";
import { textOf } from "../../../../audit/report/stream.js";
import { runAudit } from "../../../../audit/run.js";
import { DEFAULT_SOURCE_OPTIONS, openSource } from "../../../../audit/sources/index.js";
import { type FieldError, loadBundle, parseDocuments, type Verdict } from "../../../../lib/index.js";
import { type Schema, validateSchema } from "./json-schema.js";

const BUNDLE = "test/fixtures/bundles/pod-security";
const dir = mkdtempSync(join(tmpdir(), "tollgate-audit-severity-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

// A Deployment in `shop` (enforce=baseline, warn=restricted:v1.30; audit restricted by default) that passes
// baseline but not restricted: warnings and audit findings, no violation.
const INPUT = join(dir, "deployment.yaml");
writeFileSync(
  INPUT,
  `apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
  namespace: shop
spec:
  template:
    spec:
      containers:
        - name: app
          image: nginx
`,
);

const start = new Date("2026-11-22T02:15:00.000Z");
const run: AuditResult = await runAudit(
  {
    sources: [await openSource(INPUT, DEFAULT_SOURCE_OPTIONS)],
    bundle: BUNDLE,
    concurrency: 1,
    failOn: "violation",
    ownerLabels: [],
    toolVersion: "0.0.0-test",
    now: () => start,
  },
  await loadBundle(BUNDLE),
);
const files = new Map(
  await Promise.all(renderReports(run).map(async (f) => [f.name, await textOf(f.chunks())] as const)),
);
const report = JSON.parse(files.get("report.json")!) as {
  findings: { severity: string; rule: Record<string, unknown>; field?: string }[];
  objects: { auditAnnotations?: Record<string, string> }[];
  summary: Summary;
};
afterAll(() => disposeResult(run));

const CHECKS = ["allowPrivilegeEscalation", "capabilities_restricted", "runAsNonRoot", "seccompProfile_restricted"];

describe("audit findings in the reports", () => {
  it("report.json: one audit finding per failed check, the summary counts them, the object has its annotations", () => {
    const audits = report.findings.filter((f) => f.severity === "audit");
    expect(audits.map((f) => f.rule)).toEqual(
      CHECKS.map((rule) => ({ family: "pod-security", policy: "restricted:latest", rule })),
    );
    expect(report.findings.filter((f) => f.severity === "warning").map((f) => f.rule.policy)).toEqual(
      CHECKS.map(() => "restricted:v1.30"),
    );
    expect(report.summary.findings.audit).toBe(4);
    expect(report.summary.valid).toBe(1);
    expect(report.objects[0]?.auditAnnotations).toEqual({
      "pod-security.kubernetes.io/audit-violations": expect.stringMatching(
        /^would violate PodSecurity "restricted:latest": allowPrivilegeEscalation != false \(container "app"/,
      ),
    });
  });

  it("report.json is valid against its schema", () => {
    const schema = JSON.parse(readFileSync("audit/report/report.schema.json", "utf8")) as Schema;
    expect(validateSchema(schema, JSON.parse(files.get("report.json")!), schema)).toEqual([]);
  });

  it("SARIF: level note", () => {
    const sarif = JSON.parse(files.get("report.sarif")!) as {
      runs: { results: { level: string; properties: { severity: string } }[] }[];
    };
    const levels = sarif.runs[0]!.results.filter((r) => r.properties.severity === "audit").map((r) => r.level);
    expect(levels).toEqual(["note", "note", "note", "note"]);
  });

  it("JUnit: in system-out, never a failure", () => {
    const xml = files.get("junit.xml")!;
    expect(xml).not.toContain("<failure");
    expect(xml.match(/audit: spec\.template\.spec\.containers\[0\]\.securityContext/g)?.length).toBe(4);
  });

  it.each(["policyreport.yaml", "openreports.yaml"])("%s: warn results of category audit", (name) => {
    const docs = parseDocuments(files.get(name)!).map((d) => d.object as { results: Record<string, unknown>[] });
    const results = docs.flatMap((d) => d.results).filter((r) => r.category === "audit");
    expect(results.map((r) => [r.result, r.severity, r.policy, r.rule])).toEqual(
      CHECKS.map((rule) => ["warn", "low", "pod-security/restricted:latest", rule]),
    );
  });

  it("CSV and HTML: the severity, and a total in the HTML", () => {
    const rows = files
      .get("findings.csv")!
      .split("\n")
      .map((l) => l.split(","));
    expect(rows[0]?.slice(0, 2)).toEqual(["id", "severity"]);
    expect(rows.filter((r) => r[1] === "audit").length).toBe(4);
    const html = files.get("report.html")!;
    expect(html).toContain('<div class="card" id="total-audit"><b>4</b>audit findings</div>');
    expect(html.match(/<td class="sev-audit">audit<\/td>/g)?.length).toBe(4);
    expect(html).toContain('<option value="audit">audit</option>');
    expect(html).toContain('<tr><td><code>restricted:latest</code></td><td class="n">0</td><td class="n">1</td></tr>');
  });

  it("fielderrors: audit findings are not field errors of the object (it is admitted)", () => {
    expect(files.get("fielderrors.ndjson")).toBe("");
  });
});

describe("--fail-on and audit findings", () => {
  const summary = (findings: Partial<Summary["findings"]>, warnings = 0): Summary =>
    ({
      findings: {
        violation: 0,
        warning: 0,
        audit: 0,
        shadow: 0,
        "template-annotation-failure": 0,
        "policy-failure": 0,
        "input-error": 0,
        ...findings,
      },
      policyFailures: { error: 0, warning: warnings },
    }) as Summary;

  it.each([
    { failOn: "violation", findings: { audit: 3 }, fails: false },
    { failOn: "warning", findings: { audit: 3 }, fails: false },
    { failOn: "audit", findings: { audit: 3 }, fails: true },
    { failOn: "audit", findings: { warning: 1 }, fails: true },
    { failOn: "audit", findings: { violation: 1 }, fails: true },
    { failOn: "audit", findings: { shadow: 2 }, fails: false },
    { failOn: "never", findings: { audit: 3, violation: 1 }, fails: false },
  ] as const)("--fail-on $failOn with $findings: fails $fails", ({ failOn, findings, fails }) => {
    expect(summaryReachesFailOn(summary(findings), failOn)).toBe(fails);
  });
});

describe("rule references of admission policies", () => {
  it("carry the binding, the param and the validation index, which also tell findings apart", () => {
    const error = (binding: string, index: number): FieldError => ({
      type: "FieldValueForbidden",
      field: "<nil>",
      detail: "denied",
      message: "Forbidden: denied",
      severity: "audit",
      source: {
        kind: "admission-policy",
        policy: "replicas",
        rule: "object.spec.replicas < 10",
        binding,
        param: "ns/p",
        index,
      },
    });
    const verdict: Verdict = {
      allowed: true,
      covered: true,
      errors: [],
      warnings: [],
      shadowed: [],
      ratcheted: [],
      audits: [error("prod", 0), error("prod", 1), error("staging", 0)],
      warningTexts: [],
      auditAnnotations: {},
    };
    const object = { apiVersion: "apps/v1", kind: "Deployment", metadata: { name: "d" } };
    const found = findingsFromVerdict(verdict, {
      object,
      ref: { apiVersion: "apps/v1", kind: "Deployment", name: "d" },
      location: { file: "f.yaml" },
      isUpdate: false,
      startedAt: "2026-01-01T00:00:00.000Z",
    });
    expect(found.map((f) => [f.severity, f.rule])).toEqual([
      [
        "audit",
        {
          family: "admission-policy",
          policy: "replicas",
          rule: "object.spec.replicas < 10",
          binding: "prod",
          param: "ns/p",
          index: 0,
        },
      ],
      [
        "audit",
        {
          family: "admission-policy",
          policy: "replicas",
          rule: "object.spec.replicas < 10",
          binding: "prod",
          param: "ns/p",
          index: 1,
        },
      ],
      [
        "audit",
        {
          family: "admission-policy",
          policy: "replicas",
          rule: "object.spec.replicas < 10",
          binding: "staging",
          param: "ns/p",
          index: 0,
        },
      ],
    ]);
    expect(new Set(found.map((f) => f.id)).size).toBe(3);
  });
});
