import { spawn } from "node:child_process";
import { readdirSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { Spool } from "../../../audit/spool.js";
import { scratchFolders } from "../../helpers/scratch.js";

const scratch = scratchFolders("tollgate-spool-test-");

describe("Spool", () => {
  it("keeps values in memory up to its limit, in order", async () => {
    const spool = new Spool<{ n: number }>({ memoryItems: 3, directory: scratch() });
    for (let n = 0; n < 3; n++) spool.append({ n });
    expect(spool.onDisk).toBe(false);
    expect(spool.size).toBe(3);
    expect(await spool.toArray()).toEqual([{ n: 0 }, { n: 1 }, { n: 2 }]);
  });

  it("moves to a temporary file past the limit and reads back the same values, any number of times", async () => {
    const dir = scratch();
    const spool = new Spool<{ n: number; s: string }>({ memoryItems: 3, directory: dir });
    const want = Array.from({ length: 10 }, (_, n) => ({ n, s: `v${n}\n"quoted"` }));
    for (const v of want) spool.append(v);
    expect(spool.onDisk).toBe(true);
    expect(readdirSync(dir)).toHaveLength(1);
    expect(await spool.toArray()).toEqual(want);
    expect(await spool.toArray()).toEqual(want);
    spool.dispose();
    expect(readdirSync(dir)).toEqual([]);
    expect(() => spool.append({ n: 0, s: "" })).toThrow(/after dispose/);
  });

  it("reads lines whole across its read buffer (multi-byte characters at the boundary) with readers interleaved", async () => {
    const spool = new Spool<string>({ memoryItems: 0, directory: scratch() });
    // About 3 MiB of values with 2-, 3- and 4-byte UTF-8 characters, so reads of 1 MiB cut through characters.
    const want = Array.from({ length: 30_000 }, (_, i) => `${i} ${"é€😀".repeat(10 + (i % 7))}`);
    for (const v of want) spool.append(v);
    const a = spool[Symbol.asyncIterator]();
    const b = spool[Symbol.asyncIterator]();
    const gotA: string[] = [];
    const gotB: string[] = [];
    for (;;) {
      const [x, y] = [await a.next(), await b.next()];
      if (x.done === true || y.done === true) {
        expect(x.done && y.done).toBe(true);
        break;
      }
      gotA.push(x.value);
      gotB.push(y.value);
    }
    expect(gotA).toEqual(want);
    expect(gotB).toEqual(want);
    spool.dispose();
  });

  it("reads values longer than its read buffer (several MiB in one line) between short ones", async () => {
    const spool = new Spool<string>({ memoryItems: 0, directory: scratch() });
    const long = (n: number) => `${n}:${"ab€😀".repeat(300_000 * n)}`;
    const want = ["first", long(1), "between", long(3), "last"];
    for (const v of want) spool.append(v);
    expect(await spool.toArray()).toEqual(want);
    expect(await spool.toArray()).toEqual(want);
    spool.dispose();
  });

  it("an early stop of a reader leaves the spool readable", async () => {
    const spool = new Spool<number>({ memoryItems: 0, directory: scratch() });
    for (let i = 0; i < 100; i++) spool.append(i);
    for await (const v of spool) if (v === 5) break;
    expect((await spool.toArray()).length).toBe(100);
    spool.dispose();
  });
});

describe("Spool temporary files", () => {
  it.each(["SIGINT", "SIGTERM"] as const)(
    "are removed when the process ends on %s, which still ends it",
    async (signal) => {
      // Prepare: a process holding a spool on disk, printing its folder, then waiting.
      const dir = scratch();
      const script = [
        `import { Spool } from ${JSON.stringify(new URL("../../../audit/spool.ts", import.meta.url).href)};`,
        `const spool = new Spool({ memoryItems: 0, directory: ${JSON.stringify(dir)} });`,
        "spool.append({ n: 1 });",
        "console.log('ready');",
        "setInterval(() => {}, 1000);",
      ].join("\n");
      const child = spawn(process.execPath, ["--import", "tsx", "--input-type=module", "-e", script], {
        stdio: ["ignore", "pipe", "inherit"],
      });
      await new Promise<void>((resolve) =>
        child.stdout.on("data", (d: Buffer) => d.toString().includes("ready") && resolve()),
      );
      expect(readdirSync(dir)).toHaveLength(1);
      // Act
      const exited = new Promise<NodeJS.Signals | null>((resolve) => child.once("exit", (_code, sig) => resolve(sig)));
      child.kill(signal);
      // Assess
      expect(await exited).toBe(signal);
      expect(readdirSync(dir)).toEqual([]);
    },
  );
});
