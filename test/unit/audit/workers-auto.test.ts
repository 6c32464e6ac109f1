/** `--workers auto`: several auditing threads only for inputs worth their start-up, one per core but one, the main thread included (2 to 8; one thread on two cores or fewer). */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { autoWorkerCount, resolveWorkers } from "../../../audit/workers/auto.js";

const dir = mkdtempSync(join(tmpdir(), "tollgate-workers-auto-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
writeFileSync(join(dir, "a.yaml"), "x".repeat(10_000));
writeFileSync(join(dir, "b.json"), "x".repeat(10_000));

describe("resolveWorkers", () => {
  it("takes a number as given; 0 and 1 mean none; none with --previous", async () => {
    expect(await resolveWorkers(4, ["examples/export"])).toBe(4);
    expect(await resolveWorkers(1, ["examples/export"])).toBe(0);
    expect(await resolveWorkers(0, ["examples/export"])).toBe(0);
    expect(await resolveWorkers(4, ["examples/export"], { previous: true })).toBe(0);
    expect(await resolveWorkers(undefined, ["examples/export"])).toBe(0);
  });

  it("auto: one auditing thread per core but one (the main thread one of them), at most 8, for a large input only", async () => {
    expect(autoWorkerCount(1)).toBe(1);
    expect(autoWorkerCount(2)).toBe(1);
    expect(autoWorkerCount(3)).toBe(2);
    expect(autoWorkerCount(4)).toBe(3);
    expect(autoWorkerCount(9)).toBe(8);
    expect(autoWorkerCount(64)).toBe(8);
    expect(await resolveWorkers("auto", [dir], { cores: 9, minBytes: 5_000 })).toBe(8);
    expect(await resolveWorkers("auto", [dir], { cores: 8, minBytes: 50_000 })).toBe(0);
    expect(await resolveWorkers("auto", [dir], { cores: 3, minBytes: 5_000 })).toBe(2);
    expect(await resolveWorkers("auto", [dir], { cores: 2, minBytes: 5_000 })).toBe(0);
    expect(await resolveWorkers("auto", [dir], { cores: 1, minBytes: 5_000 })).toBe(0);
    expect(await resolveWorkers("auto", [dir], { cores: 64, minBytes: 5_000 })).toBe(8);
    expect(await resolveWorkers("auto", [dir], { cores: 8, minBytes: 5_000, previous: true })).toBe(0);
  });

  it("auto: JSON counts at a fifth of its size; s3:// and missing sources are not measured", async () => {
    const json = join(dir, "b.json");
    expect(await resolveWorkers("auto", [json], { cores: 8, minBytes: 2_000 })).toBe(7);
    expect(await resolveWorkers("auto", [json], { cores: 8, minBytes: 2_001 })).toBe(0);
    expect(await resolveWorkers("auto", ["s3://bucket/x", join(dir, "nope")], { cores: 8, minBytes: 1 })).toBe(0);
  });
});
