/**
 * report.html in a real headless Chromium (`npm run test:browser`, not part of `npm test`): a real audit of the
 * example export (the CLI spawned as `npm start` runs it), the page opened from disk with playwright-core driving
 * Debian's chromium (`.ci/run` installs it), and checked as a person would read it: the totals match summary.json,
 * findings are visible, the search box and the severity filter narrow the table, and the page runs with no error
 * (its Content-Security-Policy allows no external asset, so a violation would show up here).
 */
import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
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
let findingsCount: number;
const pageErrors: string[] = [];

function audit(out: string): Promise<{ code: number | null; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(
      process.execPath,
      [
        "audit/cli/bin.js",
        "audit",
        ...["--bundle", "examples/policies", "--policies-from-input", "--fail-on", "never", "--out", out],
        "examples/export",
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
  const r = await audit(out);
  expect(r.code, r.stderr).toBe(0);
  const [run] = readdirSync(out).filter((n) => n !== "latest.json");
  const folder = join(out, run!);
  summary = (JSON.parse(readFileSync(join(folder, "summary.json"), "utf8")) as { summary: typeof summary }).summary;
  findingsCount = (JSON.parse(readFileSync(join(folder, "report.json"), "utf8")) as { findings: unknown[] }).findings
    .length;

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

  it("ran with no script error or blocked asset", () => {
    expect(pageErrors).toEqual([]);
  });
});
