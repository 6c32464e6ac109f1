/**
 * report.html in a real headless Chromium (`npm run test:browser`, not part of `npm test`): three real audits at one
 * report prefix (the CLI spawned as `npm start` runs it: a part of the example export, then the part with one more
 * invalid object, then the whole export, so the last run has history, new, persisting and resolved findings),
 * the last run's page opened from disk with playwright-core driving Debian's chromium (`.ci/run` installs it), and
 * checked as a person would read it: the totals and the pass rate match summary.json, the trend chart draws the
 * three runs, the group-by tables and their pass rates match report.json, new findings are marked and filtered,
 * resolved findings are listed, every sortable column sorts, the search box and the severity filter narrow the
 * table, notes are not failures, and the page runs with no error (its Content-Security-Policy allows no external
 * asset, so a violation would show up here).
 */
import { spawn } from "node:child_process";
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { type BrowserContext, chromium, type Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));
const CHROMIUM = process.env.TOLLGATE_CHROMIUM ?? "/usr/bin/chromium";
const ARGS = [
  "--headless",
  "--no-sandbox",
  "--disable-gpu",
  "--disable-quic",
  "--no-first-run",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
];

const scratch = mkdtempSync(join(tmpdir(), "tollgate-browser-"));
let context: BrowserContext;
let page: Page;
let summary: {
  documents: number;
  valid: number;
  invalid: number;
  skippedUncovered: number;
  findings: Record<string, number>;
};
let comparison: { newFindings: number; resolvedFindings: number; persistingFindings: number };
let report: {
  startedAt: string;
  findings: { firstSeen: string; object?: { namespace?: string }; severity: string; team?: string }[];
  objects: { outcome: string; object?: { namespace?: string }; team?: string }[];
};
let findingsCount: number;
const pageErrors: string[] = [];

function audit(out: string, sources: readonly string[]): Promise<{ code: number | null; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(
      process.execPath,
      [
        "audit/cli/bin.js",
        "audit",
        ...["--bundle", "examples/policies", "--policies-from-input", "--fail-on", "never", "--out", out],
        ...sources,
      ],
      { cwd: ROOT, stdio: ["ignore", "ignore", "pipe"] },
    );
    let stderr = "";
    child.stderr.setEncoding("utf8").on("data", (d: string) => {
      stderr += d;
    });
    child.on("error", reject);
    child.on("close", (code) => resolve({ code, stderr }));
  });
}

beforeAll(async () => {
  if (!existsSync(CHROMIUM)) {
    throw new Error(`${CHROMIUM} not found: install Debian's chromium (apt-get install -y chromium), as .ci/run does`);
  }
  const out = join(scratch, "reports");
  // The first two runs: the cluster export, the second with an invalid Widget more (resolved in the last run).
  const part = join(scratch, "part");
  mkdirSync(part);
  copyFileSync(join(ROOT, "examples/export/cluster-export.yaml"), join(part, "cluster-export.yaml"));
  const extra = join(scratch, "extra");
  mkdirSync(extra);
  copyFileSync(join(ROOT, "examples/objects/widget-several-errors.yaml"), join(extra, "widget.yaml"));
  for (const sources of [[part], [part, extra], ["examples/export"]]) {
    const r = await audit(out, sources);
    expect(r.code, r.stderr).toBe(0);
    // Run folders are named by the second.
    await new Promise((resolve) => setTimeout(resolve, 1100));
  }
  const runs = readdirSync(out).filter((n) => /^\d{8}T\d{6}Z$/.test(n));
  expect(runs).toHaveLength(3);
  const folder = join(out, runs[2]!);
  const summaryJson = JSON.parse(readFileSync(join(folder, "summary.json"), "utf8")) as {
    summary: typeof summary;
    comparison: typeof comparison;
  };
  summary = summaryJson.summary;
  comparison = summaryJson.comparison;
  report = JSON.parse(readFileSync(join(folder, "report.json"), "utf8")) as typeof report;
  findingsCount = report.findings.length;

  context = await chromium.launchPersistentContext(join(scratch, "profile"), {
    executablePath: CHROMIUM,
    headless: true,
    args: ARGS,
  });
  page = context.pages()[0] ?? (await context.newPage());
  page.on("pageerror", (e) => pageErrors.push(e.message));
  page.on("console", (m) => {
    if (m.type() === "error") pageErrors.push(m.text());
  });
  await page.goto(pathToFileURL(join(folder, "report.html")).href);
}, 120_000);

afterAll(async () => {
  await context?.close();
  rmSync(scratch, { recursive: true, force: true });
});

const visibleRows = () => page.locator("#findings tbody tr:visible");

describe("report.html in Chromium", () => {
  it("shows the run's totals as summary.json has them", async () => {
    expect(summary.documents).toBeGreaterThan(0);
    const text = async (id: string) => (await page.locator(`#${id} b`).textContent())?.trim();
    expect(await text("total-documents")).toBe(String(summary.documents));
    expect(await text("total-valid")).toBe(String(summary.valid));
    expect(await text("total-invalid")).toBe(String(summary.invalid));
    expect(await text("total-skipped")).toBe(String(summary.skippedUncovered));
    expect(await text("total-violations")).toBe(String(summary.findings.violation));
    expect(await text("total-warnings")).toBe(String(summary.findings.warning));
    expect(await text("total-audit")).toBe(String(summary.findings.audit));
    const rate = Math.round((1000 * summary.valid) / (summary.valid + summary.invalid)) / 10;
    expect(await text("total-pass-rate")).toBe(`${rate}%`);
    expect(await page.locator("#pass-rate").textContent()).toContain(
      `${rate}% (${summary.valid} of ${summary.valid + summary.invalid})`,
    );
  });

  it("draws the trend of the three runs: a line per severity found, a point per run, this run's counts last", async () => {
    const chart = page.locator("svg#trend-chart");
    await expect.poll(() => chart.isVisible()).toBe(true);
    expect(await chart.getAttribute("data-runs")).toBe("3");
    const severities = Object.entries(summary.findings)
      .filter(([, n]) => n > 0)
      .map(([s]) => s);
    const lines = await chart
      .locator("polyline.trend-line")
      .evaluateAll((ls) => ls.map((l) => l.getAttribute("data-severity")));
    for (const s of severities) expect(lines).toContain(s);
    for (const s of lines) {
      const points = chart.locator(`polyline[data-severity="${s}"]`);
      expect((await points.getAttribute("points"))!.trim().split(" ")).toHaveLength(3);
    }
    // The tooltip of the last point of the violation line names this run and its count.
    const titles = await chart.locator("circle title").allTextContents();
    expect(titles).toContain(
      `${report.startedAt.replace(/[-:]/g, "").replace(/\.\d{3}Z$/, "Z")}: ${summary.findings.violation} violation`,
    );
  });

  it("breaks findings and pass rates down by namespace as report.json counts them", async () => {
    const byNs = new Map<string, { findings: number; checked: number; failed: number }>();
    const get = (ns: string) => {
      let c = byNs.get(ns);
      if (c === undefined) {
        c = { findings: 0, checked: 0, failed: 0 };
        byNs.set(ns, c);
      }
      return c;
    };
    for (const f of report.findings) if (f.object?.namespace !== undefined) get(f.object.namespace).findings++;
    for (const o of report.objects) {
      if (o.object?.namespace === undefined || (o.outcome !== "valid" && o.outcome !== "invalid")) continue;
      const c = get(o.object.namespace);
      c.checked++;
      if (o.outcome === "invalid") c.failed++;
    }
    const rows = await page
      .locator("#by-namespace tbody tr")
      .evaluateAll((rs) =>
        rs.map((r) => Array.from(r.children, (td) => (td as { textContent: string | null }).textContent?.trim() ?? "")),
      );
    expect(rows.length).toBe(byNs.size);
    for (const [ns, , , findings, checked, rate] of rows) {
      const c = byNs.get(ns!)!;
      expect([findings, checked]).toEqual([String(c.findings), String(c.checked)]);
      expect(rate).toBe(`${Math.round((1000 * (c.checked - c.failed)) / c.checked) / 10}%`);
    }
    // Teams and controllers have their own tables: a Pod of a ReplicaSet of a Deployment counts under the Deployment.
    // A team has a row when one of its objects was checked or has a finding.
    const teams = new Set(
      [...report.findings, ...report.objects.filter((o) => o.outcome === "valid" || o.outcome === "invalid")]
        .map((x) => x.team)
        .filter((t) => t !== undefined),
    );
    expect(await page.locator("#by-team tbody tr").count()).toBe(teams.size);
    expect(await page.locator("#by-controller").textContent()).toContain("Deployment/");
  });

  it("marks the findings first seen in this run as new, and filters to them", async () => {
    const isNew = report.findings.filter((f) => f.firstSeen === report.startedAt).length;
    expect(isNew).toBe(comparison.newFindings);
    expect(isNew).toBeGreaterThan(0);
    expect(isNew).toBeLessThan(findingsCount);
    expect(await page.locator("#findings tbody tr[data-new] .new").count()).toBe(isNew);
    await page.locator("#only-new").check();
    expect(await page.locator("#shown").textContent()).toBe(String(isNew));
    expect(await visibleRows().count()).toBe(isNew);
    await page.locator("#only-new").uncheck();
    expect(await visibleRows().count()).toBe(findingsCount);
  });

  it("lists the resolved findings", async () => {
    expect(comparison.resolvedFindings).toBeGreaterThan(0);
    expect(await page.locator("#resolved tbody tr").count()).toBe(comparison.resolvedFindings);
    expect(await page.locator("#resolved").textContent()).toContain("Widget");
  });

  it("sorts by any column header, numbers as numbers, and back", async () => {
    const firstCells = async (table: string, col: number) =>
      page
        .locator(`${table} tbody tr`)
        .evaluateAll((rs, c) => rs.map((r) => r.children[c]?.textContent?.trim() ?? ""), col);
    const byText = (a: string, b: string) =>
      a.toLowerCase() < b.toLowerCase() ? -1 : a.toLowerCase() > b.toLowerCase() ? 1 : 0;
    // The findings by object name: in input order first, which is not sorted.
    const before = await firstCells("#findings", 1);
    expect(before).not.toEqual([...before].sort(byText));
    const header = page.locator("#findings thead th").nth(1);
    await header.click();
    expect(await header.getAttribute("aria-sort")).toBe("ascending");
    expect(await firstCells("#findings", 1)).toEqual([...before].sort(byText));
    await header.click();
    expect(await header.getAttribute("aria-sort")).toBe("descending");
    expect(await firstCells("#findings", 1)).toEqual([...before].sort((a, b) => byText(b, a)));
    expect(await visibleRows().count()).toBe(findingsCount);
    // A group-by table by its objects-checked count, as numbers; then by pass rate (its data-sort), descending.
    const checked = page.locator("#by-namespace thead th").nth(4);
    await checked.click();
    const numbers = (await firstCells("#by-namespace", 4)).map(Number);
    expect(numbers).toEqual([...numbers].sort((a, b) => a - b));
    const rate = page.locator("#by-namespace thead th").nth(5);
    await rate.click();
    await rate.click();
    const rates = (await firstCells("#by-namespace", 5)).map((t) => Number.parseFloat(t));
    expect(rates).toEqual([...rates].sort((a, b) => b - a));
    // The search still filters the reordered rows.
    await page.locator("#q").fill("no finding says this 7f3a");
    expect(await visibleRows().count()).toBe(0);
    await page.locator("#q").fill("");
  });

  it("shows kinds no policy covers as notes, not as failures", async () => {
    const notes = page.locator("h2:has-text('Notes') + div.notes");
    await expect.poll(() => notes.isVisible()).toBe(true);
    const kinds = Object.keys((summary as unknown as { skippedByKind: Record<string, number> }).skippedByKind);
    expect(kinds.length).toBeGreaterThan(0);
    for (const k of kinds) expect(await page.locator("#skipped-kinds").textContent()).toContain(k);
    expect(await page.locator("#findings tbody tr[data-severity='policy-failure']").count()).toBe(0);
  });

  it("shows every finding, a violation among them, visibly", async () => {
    expect(await page.locator("#shown").textContent()).toBe(String(findingsCount));
    expect(await visibleRows().count()).toBe(findingsCount);
    const violation = page.locator('#findings tbody tr[data-severity="violation"]').first();
    await expect.poll(() => violation.isVisible()).toBe(true);
    expect(await violation.locator("td").nth(3).textContent()).not.toBe("");
  });

  it("narrows the table as the search box is typed into, and back", async () => {
    // Take the object of the first violation, and search for its name.
    const first = page.locator('#findings tbody tr[data-severity="violation"]').first();
    const object = (await first.locator("td").nth(1).textContent()) ?? "";
    const name = object.split("/").pop()!.trim();
    expect(name).not.toBe("");
    const matching = (await page.locator("#findings tbody tr").allTextContents()).filter((t) =>
      t.toLowerCase().includes(name.toLowerCase()),
    ).length;
    expect(matching).toBeGreaterThan(0);
    expect(matching).toBeLessThan(findingsCount);

    await page.locator("#q").fill(name);
    expect(await page.locator("#shown").textContent()).toBe(String(matching));
    expect(await visibleRows().count()).toBe(matching);
    for (const t of await visibleRows().allTextContents()) expect(t.toLowerCase()).toContain(name.toLowerCase());

    await page.locator("#q").fill("no finding says this 7f3a");
    expect(await page.locator("#shown").textContent()).toBe("0");
    expect(await visibleRows().count()).toBe(0);

    await page.locator("#q").fill("");
    expect(await visibleRows().count()).toBe(findingsCount);
  });

  it("filters by severity", async () => {
    await page.locator("#sev").selectOption("warning");
    const warnings = summary.findings.warning ?? 0;
    expect(await page.locator("#shown").textContent()).toBe(String(warnings));
    for (const sev of await visibleRows().evaluateAll((rows) => rows.map((r) => r.getAttribute("data-severity")))) {
      expect(sev).toBe("warning");
    }
    await page.locator("#sev").selectOption("");
    expect(await visibleRows().count()).toBe(findingsCount);
  });

  it("lists the bundle's waivers with their standing, and each waived finding with its waiver", async () => {
    const waived = report.findings.filter((f) => f.severity === "waived");
    // examples/policies/waivers.yaml: checkout-replicas waives the checkout Widget's replica finding;
    // debug-shell-privileged expired and waives nothing.
    expect(waived.length).toBeGreaterThan(0);
    expect((await page.locator("#total-waived b").textContent())?.trim()).toBe(String(summary.findings.waived));
    expect(await page.locator('#waivers tr[data-waiver="checkout-replicas"]').count()).toBe(1);
    expect(await page.locator('#waivers tr.waiver-expired[data-waiver="debug-shell-privileged"]').count()).toBe(1);
    const rows = page.locator("#waived tbody tr");
    expect(await rows.count()).toBe(waived.length);
    for (const cell of await rows.locator("td:nth-child(5)").allTextContents()) expect(cell).toBe("checkout-replicas");
  });

  it("ran with no script error or blocked asset", () => {
    expect(pageErrors).toEqual([]);
  });
});
