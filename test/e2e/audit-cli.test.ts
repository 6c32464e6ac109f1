/**
 * `tollgate audit` as a black box: spawn `node audit/cli/bin.js` (what `npx tollgate` runs) and check exit codes,
 * standard output and the files of the run folder.
 */
import { cpSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { parseDocuments, unwrapList } from "../../lib/index.js";
import { ROOT, type Run, runCommand } from "../helpers/spawn.js";

const BUNDLE = "test/fixtures/audit/bundle";
const CURRENT = "test/fixtures/audit/snapshots/current.yaml";
const PREVIOUS = "test/fixtures/audit/snapshots/previous.yaml";
const scratch = mkdtempSync(join(tmpdir(), "tollgate-audit-e2e-"));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

function tollgate(args: readonly string[]): Promise<Run> {
  return runCommand(process.execPath, ["audit/cli/bin.js", ...args], { env: { ...process.env, NO_COLOR: "1" } });
}

/** Replaces the run id and the scratch folder, the only things that vary. */
function normalise(text: string): string {
  return text.replaceAll(scratch, "<out>").replace(/\d{8}T\d{6}Z/g, "<run>");
}

describe("tollgate audit", () => {
  it("writes the full report set, index.json and latest.json, and exits 1 on violations", async () => {
    // Prepare
    const out = join(scratch, "full");
    // Act
    const r = await tollgate(["audit", "--bundle", BUNDLE, "--out", out, "--previous", PREVIOUS, CURRENT]);
    // Assess
    expect(r.stderr).toBe("");
    expect(r.code).toBe(1);
    expect(normalise(r.stdout)).toBe(
      [
        `tollgate audit <run>: 10 documents from ${CURRENT} against ${BUNDLE} (2 kinds)`,
        "  objects: 1 valid, 5 invalid, 2 skipped (no policy for the kind), 0 not Kubernetes objects, 2 input errors",
        "  findings: 9 violations (4 blocking, 1 grandfathered), 0 warnings, 0 shadowed, 0 template annotation failures, 1 policy failure",
        "  skipped kinds: v1/Secret (1), v1/ConfigMap (1)",
        "Reports: <out>/full/<run>/ (report.json, summary.json, report.sarif, junit.xml, policyreport.yaml, openreports.yaml, findings.csv, fielderrors.ndjson, report.html)",
        "HTML report: <out>/full/<run>/report.html",
        "",
      ].join("\n"),
    );
    const [runFolder] = readdirSync(out).filter((n) => n !== "latest.json");
    const index = JSON.parse(readFileSync(join(out, runFolder!, "index.json"), "utf8")) as {
      files: { name: string }[];
    };
    expect(index.files.map((f) => f.name)).toHaveLength(9);
    const latest = JSON.parse(readFileSync(join(out, "latest.json"), "utf8")) as { path: string };
    expect(latest.path).toBe(`${runFolder}/`);

    // A second run at the same prefix compares with the first.
    const again = await tollgate(["audit", "--bundle", BUNDLE, "--out", out, "--previous", PREVIOUS, CURRENT]);
    expect(again.stdout).toContain("  since ");
    expect(again.stdout).toMatch(/: 0 new, 0 resolved, 12 persisting\n/);
  });

  it.each([
    { failOn: "never", code: 0 },
    { failOn: "violation", code: 1 },
    { failOn: "warning", code: 1 },
  ])("--fail-on $failOn exits $code", async ({ failOn, code }) => {
    const out = join(scratch, `fail-on-${failOn}`);
    const r = await tollgate(["audit", "-b", BUNDLE, "--out", out, "--fail-on", failOn, "--format", "json", CURRENT]);
    expect(r.code).toBe(code);
    expect(readdirSync(join(out, readdirSync(out).find((n) => n !== "latest.json")!)).sort()).toEqual([
      "index.json",
      "report.json",
    ]);
  });

  it("exits 0 when only valid objects and uncovered kinds are found", async () => {
    const out = join(scratch, "clean");
    const r = await tollgate(["audit", "-b", "examples/policies", "--out", out, "examples/objects/widget-valid.yaml"]);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain("1 valid, 0 invalid");
  });

  it.each([
    {
      name: "no bundle",
      args: ["audit", CURRENT],
      message: "error: --bundle <path> is required (or set TOLLGATE_BUNDLE)",
    },
    { name: "no source", args: ["audit", "-b", BUNDLE], message: "error: missing required argument 'sources'" },
    {
      name: "a bad --fail-on",
      args: ["audit", "-b", BUNDLE, "--fail-on", "sometimes", CURRENT],
      message: 'error: --fail-on must be one of violation, warning, audit, never, not "sometimes"',
    },
    {
      name: "an unknown format",
      args: ["audit", "-b", BUNDLE, "--format", "pdf", CURRENT],
      message:
        'error: --format takes a comma-separated list of json, summary, sarif, junit, policyreport, openreports, csv, fielderrors, html; unknown: "pdf"',
    },
    {
      name: "a bad --concurrency",
      args: ["audit", "-b", BUNDLE, "--concurrency", "0", CURRENT],
      message: 'error: --concurrency must be an integer from 1 to 9999, not "0"',
    },
    {
      name: "a missing source",
      args: ["audit", "-b", BUNDLE, "--out", join(scratch, "x"), "no/such.yaml"],
      message: 'error: source "no/such.yaml" does not exist',
    },
    {
      name: "a missing bundle",
      args: ["audit", "-b", "no/bundle", "--out", join(scratch, "x"), CURRENT],
      message: 'error: bundle path "no/bundle" does not exist',
    },
  ])("exits 2 for $name", async ({ args, message }) => {
    const r = await tollgate(args);
    expect(r.code).toBe(2);
    expect(r.stderr.split("\n")[0]).toBe(message);
    expect(existsSync(join(scratch, "x"))).toBe(false);
  });
});

describe("tollgate audit of a JSON List over --max-json-bytes", () => {
  it("streams it item by item and reports what parsing it whole reports", async () => {
    // Prepare: the fixture's objects as one `kind: List` (what kubectl get -A -o json writes), keys sorted as kubectl
    // sorts them, so `kind` comes after `items`.
    const items = parseDocuments(readFileSync(CURRENT, "utf8"))
      .filter((d) => d.error === undefined)
      .flatMap((d) => unwrapList(d.object) ?? [d.object]);
    const file = join(scratch, "export.json");
    writeFileSync(file, JSON.stringify({ apiVersion: "v1", items, kind: "List", metadata: {} }, null, 1));
    const reportOf = async (extra: string[]) => {
      const out = join(scratch, `json-${extra.length}`);
      const r = await tollgate(["audit", "--bundle", BUNDLE, "--out", out, "--format", "json", ...extra, file]);
      expect(r.stderr).toBe("");
      const [folder] = readdirSync(out).filter((n) => n !== "latest.json");
      const report = JSON.parse(readFileSync(join(out, folder!, "report.json"), "utf8")) as {
        summary: { documents: number };
        findings: { id: string; message: string; location?: unknown; firstSeen?: string }[];
      };
      return {
        code: r.code,
        summary: { ...report.summary, durationMs: 0, objectsPerSecond: 0 },
        findings: report.findings.map(({ firstSeen: _run, ...f }) => f),
      };
    };
    // Act
    const whole = await reportOf([]);
    const streamed = await reportOf(["--max-json-bytes", "1Ki"]);
    // Assess
    expect(statSync(file).size).toBeGreaterThan(1024);
    expect(whole.summary.documents).toBe(items.length);
    expect(streamed).toEqual(whole);
  });
});

describe("npm start (the README's first command)", () => {
  it("audits the example export with --fail-on never, exits 0 and prints where the HTML report is", async () => {
    // Prepare
    const out = join(scratch, "npm-start");
    // Act: package.json's script, with the output moved to the scratch folder.
    const r = await runCommand("npm", ["run", "--silent", "start", "--", "--out", out], {
      env: { ...process.env, NO_COLOR: "1" },
    });
    // Assess
    expect(r.code).toBe(0);
    const lines = normalise(r.stdout).split("\n");
    expect(lines[0]).toBe(
      "tollgate audit <run>: 31 documents from examples/export against examples/policies (16 kinds, 2 policies from the input)",
    );
    expect(lines).toContain(
      "  findings: 17 violations, 7 warnings, 19 audit findings, 1 waived, 0 shadowed, 0 template annotation failures, 0 policy failures",
    );
    // examples/policies/waivers.yaml: the checkout Widget's replicas are waived; the debug Pod's waiver expired.
    expect(lines).toContain("  waivers: 2 waivers (1 active, 0 expiring, 1 expired, 0 unused), 1 finding waived");
    expect(lines).toContain(
      "  waivers expired: debug-shell-privileged (platform, expired 2026-01-31T00:00:00Z; 1 finding no longer waived)",
    );
    // Pod Security: the namespaces' levels (from the export's Namespaces) and the configuration's defaults.
    expect(lines).toContain(
      "  pod security: baseline:latest: 1 pod, 2 workloads; restricted:latest: 3 pods, 5 workloads; restricted:v1.30: 0 pods, 2 workloads checked",
    );
    expect(lines).toContain("HTML report: <out>/npm-start/<run>/report.html");
    const html = readFileSync(join(out, readdirSync(out).find((n) => n !== "latest.json")!, "report.html"), "utf8");
    expect(html).not.toContain("example-not-a-real-token");
    // Pod Security findings in the HTML report too (every format: test/unit/audit/report/audit-severity.test.ts).
    expect(html).toContain("<code>pod-security baseline:latest</code><br><code>privileged</code>");
    expect(html).toContain('<table id="pod-security">');
    // ValidatingAdmissionPolicy findings (examples/export/platform-export.yaml): a Deny with shop's param from the
    // input, a Deny answered by the authorizer from the bundle's RBAC objects, a Warn and an Audit.
    expect(html).toContain(
      "replica-limit&#39; with binding &#39;replica-limit-per-namespace&#39; denied request: replicas must be at most 5 in shop, not 8",
    );
    expect(html).toContain(
      "tollgate-audit may not scale deployments in payments, so may not ask for more than 2 replicas",
    );
    expect(html).toContain("<code>admission-policy trusted-registry</code>");
    expect(html).toContain("<code>admission-policy namespace-owner</code>");
  });

  it("--pod-security restricted answers what would break if every namespace enforced restricted", async () => {
    // Prepare
    const out = join(scratch, "what-if");
    // Act
    const r = await runCommand(
      "npm",
      ["run", "--silent", "start", "--", "--out", out, "--pod-security", "restricted"],
      {
        env: { ...process.env, NO_COLOR: "1" },
      },
    );
    // Assess
    expect(r.code).toBe(0);
    const lines = normalise(r.stdout).split("\n");
    // The Deployments of platform-export.yaml meet restricted, so their namespaces' warn levels are evaluated too.
    expect(lines).toContain(
      "  pod security: baseline:latest: 0 pods, 1 workload; restricted:latest: 3 pods, 5 workloads; restricted:v1.30: 0 pods, 1 workload checked",
    );
    const run = readdirSync(out).find((n) => n !== "latest.json")!;
    const report = JSON.parse(readFileSync(join(out, run, "report.json"), "utf8")) as {
      findings: { severity: string; object?: { kind: string; name: string }; rule: { policy?: string } }[];
    };
    const breaking = new Set(
      report.findings
        .filter((f) => f.severity === "violation" && f.rule.policy === "restricted:latest")
        .map((f) => `${f.object?.kind}/${f.object?.name}`),
    );
    // Everything but the compliant Pod of payments and the exempt DaemonSet of kube-system would break.
    expect([...breaking].sort()).toEqual([
      "CronJob/nightly-sync",
      "Deployment/storefront",
      "Pod/debug-shell",
      "Pod/notebook",
    ]);
  });
});

describe("the README's CI example (--out ci-reports .)", () => {
  it("never audits its own reports: a second run reads the same documents as the first", async () => {
    // Prepare: a checkout holding the bundle and some manifests; the reports go into it, as the README's example does.
    const checkout = join(scratch, "checkout");
    cpSync(join(ROOT, BUNDLE), join(checkout, "policies"), { recursive: true });
    cpSync(join(ROOT, CURRENT), join(checkout, "deploy", "current.yaml"));
    const audit = () =>
      runCommand(
        process.execPath,
        [
          join(ROOT, "audit/cli/bin.js"),
          "audit",
          "--bundle",
          "./policies",
          "--format",
          "sarif,junit",
          "--out",
          "ci-reports",
          ".",
        ],
        { env: { ...process.env, NO_COLOR: "1" }, cwd: checkout },
      );
    const documents = (r: Run) => /: (\d+) documents from \. /.exec(r.stdout)?.[1];
    // Act
    const first = await audit();
    const second = await audit();
    // A report folder of another run (./reports of npm start) is recognised by its layout, not only as --out.
    cpSync(join(checkout, "ci-reports"), join(checkout, "reports"), { recursive: true });
    const third = await audit();
    // Assess
    expect(first.stderr).toBe("");
    expect(documents(first)).toBeDefined();
    expect(documents(second)).toBe(documents(first));
    expect(documents(third)).toBe(documents(first));
  });
});

describe("notes are not policy failures", () => {
  it("a bundle holding a ConfigMap (a note) fails no --fail-on and counts no policy failure in any report", async () => {
    // Prepare
    const bundle = join(scratch, "bundle-with-state");
    cpSync(join(ROOT, BUNDLE), bundle, { recursive: true });
    writeFileSync(join(bundle, "settings.yaml"), "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: settings\n");
    const out = join(scratch, "notes");
    const valid = join(scratch, "valid-widget.yaml");
    writeFileSync(
      valid,
      "apiVersion: audit.tollgate.dev/v1\nkind: Widget\nmetadata:\n  name: w\n  namespace: team-a\nspec:\n  replicas: 1\n",
    );
    // Act: the bundle's own Gizmo CRD does not compile (an error), so drop it to see the note alone.
    rmSync(join(bundle, "broken-crd.yaml"));
    const r = await tollgate(["audit", "--bundle", bundle, "--out", out, "--fail-on", "warning", valid]);
    // Assess: it used to count as a warning-severity policy failure, which --fail-on warning fails on.
    expect(r.stdout).toContain(", 0 policy failures\n");
    expect(r.code).toBe(0);
    const run = readdirSync(out).find((n) => n !== "latest.json")!;
    const report = JSON.parse(readFileSync(join(out, run, "report.json"), "utf8")) as {
      summary: { policyFailures: { error: number; warning: number } };
      findings: { severity: string }[];
    };
    expect(report.summary.policyFailures).toEqual({ error: 0, warning: 0 });
    expect(report.findings.filter((f) => f.severity === "policy-failure")).toEqual([]);
    expect(readFileSync(join(out, run, "report.sarif"), "utf8")).not.toContain("settings");
    // report.json keeps the note as a note, and the HTML report lists it among the notes, not the findings.
    expect((report as unknown as { notes: unknown }).notes).toEqual([
      { file: "settings.yaml", document: 0, message: 'not a policy document (v1 ConfigMap "settings"): ignored' },
    ]);
    const html = readFileSync(join(out, run, "report.html"), "utf8");
    expect(html).toMatch(
      /<ul id="notes"><li class="note"><code>settings\.yaml#0<\/code>: not a policy document \(v1 ConfigMap &quot;settings&quot;\): ignored<\/li><\/ul>/,
    );
  });
});

describe("three runs in a row (npm start three times)", () => {
  it("history.json gets a line per run, the HTML draws the trend, and tollgate verify passes until one byte changes", async () => {
    // Prepare
    const out = join(scratch, "three");
    const start = ["audit", "--bundle", "examples/policies", "--policies-from-input", "--fail-on", "never"];
    // Act: three runs, one second apart (run folders are named by the second).
    for (let i = 0; i < 3; i++) {
      const r = await tollgate([...start, "--out", out, "examples/export"]);
      expect(r.code, r.stderr).toBe(0);
      await new Promise((resolve) => setTimeout(resolve, 1100));
    }
    // Assess
    const runs = readdirSync(out).filter((n) => /^\d{8}T\d{6}Z/.test(n));
    expect(runs).toHaveLength(3);
    const history = readFileSync(join(out, "history.json"), "utf8").trim().split("\n");
    expect(history.map((l) => (JSON.parse(l) as { path: string }).path)).toEqual(runs.map((r) => `${r}/`));
    // Each run's index.json links to the one before it by the digest of its index.json.
    const { createHash } = await import("node:crypto");
    for (let i = 1; i < 3; i++) {
      const index = JSON.parse(readFileSync(join(out, runs[i]!, "index.json"), "utf8")) as {
        previous: { path: string; sha256: string };
      };
      expect(index.previous.path).toBe(`${runs[i - 1]}/`);
      const before = readFileSync(join(out, runs[i - 1]!, "index.json"));
      expect(index.previous.sha256).toBe(createHash("sha256").update(before).digest("hex"));
    }
    // The third run's HTML draws three points per severity.
    const html = readFileSync(join(out, runs[2]!, "report.html"), "utf8");
    expect(html).toContain('<svg id="trend-chart"');

    const ok = await tollgate(["verify", out]);
    expect(ok.stderr).toBe("");
    expect(ok.code).toBe(0);
    expect(ok.stdout).toMatch(
      new RegExp(
        `^verified ${out}: 3 run\\(s\\), 27 file\\(s\\) as written; newest index\\.json sha256 [0-9a-f]{64}\\n$`,
      ),
    );

    // One byte of the middle run's report.html changed.
    const file = join(out, runs[1]!, "report.html");
    const bytes = readFileSync(file);
    bytes[200] = bytes[200] === 0x20 ? 0x09 : 0x20;
    writeFileSync(file, bytes);
    const broken = await tollgate(["verify", out]);
    expect(broken.code).toBe(1);
    expect(broken.stdout.split("\n")[0]).toMatch(
      new RegExp(`^BROKEN ${file}: changed \\(index\\.json records \\d+ bytes`),
    );
    expect(broken.stdout).toContain("verify failed: 1 problem(s)");
    // The run folder alone: the same file named.
    const one = await tollgate(["verify", join(out, runs[1]!)]);
    expect(one.code).toBe(1);
    expect(one.stdout).toContain(`BROKEN ${file}: changed`);
    // A location with no run: a usage error.
    const none = await tollgate(["verify", join(scratch, "no-such-prefix")]);
    expect(none.code).toBe(2);
  }, 120_000);
});
