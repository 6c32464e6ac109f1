/** `tollgate audit`'s progress bar (audit/cli/progress.ts) drawn on a fake terminal, and the CLI drawing it on a TTY only. */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Readable } from "node:stream";
import { afterAll, describe, expect, it } from "vitest";
import { parseArgs } from "../../../../audit/cli/args.js";
import { runAuditCommand } from "../../../../audit/cli/commands/audit.js";
import { startProgressBar } from "../../../../audit/cli/progress.js";

const scratch = mkdtempSync(join(tmpdir(), "tollgate-progress-"));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

/** Strips terminal control sequences. */
const ESC = String.fromCharCode(0x1b);
const CONTROL = new RegExp(`${ESC}\\[[0-9;?]*[A-Za-z]`, "g");
const plain = (s: string) => s.replace(CONTROL, "");

describe("startProgressBar", () => {
  it("shows the share of the input read, documents, documents/s and an ETA, and erases itself at the end", async () => {
    let out = "";
    const bar = await startProgressBar({ write: (t) => (out += t), columns: 120 }, 1000);
    bar.onRead(250);
    bar.update({ documents: 40, units: 1, elapsedMs: 2000 });
    await new Promise((r) => setTimeout(r, 250));
    bar.onRead(250);
    bar.update({ documents: 80, units: 2, elapsedMs: 4000 });
    await new Promise((r) => setTimeout(r, 250));
    const drawn = plain(out);
    expect(drawn).toContain("auditing");
    expect(drawn).toMatch(/50% \| 80 documents \| 20 documents\/s \| ETA \d+s/);
    bar.stop();
    // clearOnComplete: the last thing written erases the line.
    const tail = out.slice(out.lastIndexOf("auditing"));
    expect([`${ESC}[2K`, `${ESC}[0K`, `${ESC}[K`].some((code) => tail.includes(code))).toBe(true);
  });

  it("without a known size (an s3:// source) shows documents and documents/s only", async () => {
    let out = "";
    const bar = await startProgressBar({ write: (t) => (out += t), columns: 120 }, undefined);
    bar.onRead(1_000_000);
    bar.update({ documents: 10, units: 1, elapsedMs: 1000 });
    await new Promise((r) => setTimeout(r, 250));
    bar.stop();
    const drawn = plain(out);
    expect(drawn).toContain("auditing | 10 documents | 10 documents/s");
    expect(drawn).not.toContain("%");
    expect(drawn).not.toContain("ETA");
  });
});

describe("tollgate audit progress", () => {
  const config = (out: string) => {
    const parsed = parseArgs(
      [
        "audit",
        "--bundle",
        "test/fixtures/audit/bundle",
        "--out",
        out,
        "--fail-on",
        "never",
        "test/fixtures/audit/snapshots/current.yaml",
      ],
      {},
      "0.0.0",
    );
    if (parsed.kind !== "audit") throw new Error(parsed.kind);
    return parsed.config;
  };

  it("draws the bar on standard error when it is a terminal", async () => {
    let err = "";
    await runAuditCommand(config(join(scratch, "tty")), {
      stdin: Readable.from([]),
      stdout: () => {},
      stderr: (t) => (err += t),
      isTty: true,
      columns: 100,
    });
    expect(plain(err)).toMatch(/auditing .*% \| \d+ documents/);
  });

  it("writes nothing to standard error otherwise (CI logs)", async () => {
    let err = "";
    await runAuditCommand(config(join(scratch, "ci")), {
      stdin: Readable.from([]),
      stdout: () => {},
      stderr: (t) => (err += t),
      isTty: false,
    });
    expect(err).toBe("");
  });
});
