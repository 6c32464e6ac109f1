import { readdirSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { TextSpool, textSpoolWrites } from "../../../audit/text-spool.js";
import { scratchFolders } from "../../helpers/scratch.js";

const scratch = scratchFolders("tollgate-text-spool-test-");

async function read(pieces: AsyncIterable<Uint8Array>): Promise<string> {
  const all: Uint8Array[] = [];
  for await (const p of pieces) all.push(p);
  return Buffer.concat(all).toString("utf8");
}

/** About 2 MiB of text with 2-, 3- and 4-byte characters, in pieces of varying length, and each piece's offset. */
function pieces(): { texts: string[]; offsets: number[] } {
  const texts = Array.from({ length: 30_000 }, (_, i) => `${i} ${"é€😀a".repeat(i % 13)}\n`);
  const offsets = [0];
  for (const t of texts) offsets.push(offsets[offsets.length - 1]! + Buffer.byteLength(t));
  return { texts, offsets };
}

describe("TextSpool", () => {
  it.each([
    ["in memory", Number.POSITIVE_INFINITY],
    ["on disk", 0],
  ])("gives back the bytes appended, whole and by range, any number of times (%s)", async (_label, memoryBytes) => {
    const dir = scratch();
    const spool = new TextSpool({ memoryBytes, directory: dir });
    const { texts, offsets } = pieces();
    for (let i = 0; i < texts.length; i++) {
      expect(spool.bytes).toBe(offsets[i]);
      spool.append(texts[i]!);
    }
    expect(spool.onDisk).toBe(memoryBytes === 0);
    expect(readdirSync(dir)).toHaveLength(memoryBytes === 0 ? 1 : 0);
    const whole = texts.join("");
    expect(await read(spool.chunks())).toBe(whole);
    expect(await read(spool.chunks())).toBe(whole);
    // Ranges that start and end at piece boundaries, across the 1 MiB reads and the encoded pieces.
    for (const [from, to] of [
      [0, 1],
      [5, 7],
      [10_000, 20_000],
      [29_999, 30_000],
      [123, 123],
    ] as const) {
      expect(await read(spool.chunks(offsets[from], offsets[to]))).toBe(texts.slice(from, to).join(""));
    }
    spool.dispose();
    expect(readdirSync(dir)).toEqual([]);
    expect(() => spool.append("x")).toThrow(/after dispose/);
  });

  it("moves to its file once past its memory bound, and takes bytes from another spool as they are", async () => {
    const dir = scratch();
    const a = new TextSpool({ memoryBytes: 100_000, directory: dir });
    const b = new TextSpool({ memoryBytes: 0, directory: dir });
    const { texts } = pieces();
    for (const t of texts.slice(0, 200)) a.append(t);
    expect(a.onDisk).toBe(false);
    for (const t of texts.slice(200)) a.append(t);
    expect(a.onDisk).toBe(true);
    b.append("head\n");
    for await (const piece of a.chunks()) b.appendBytes(piece);
    b.append("tail\n");
    expect(await read(b.chunks())).toBe(`head\n${texts.join("")}tail\n`);
    a.dispose();
    b.dispose();
    expect(readdirSync(dir)).toEqual([]);
  });

  it("removes its file when disposed of while its writes are still going", async () => {
    const dir = scratch();
    const spool = new TextSpool({ memoryBytes: 0, directory: dir });
    for (const t of pieces().texts) spool.append(t);
    expect(spool.bytes).toBeGreaterThan(1_500_000);
    spool.dispose();
    await textSpoolWrites(0);
    expect(readdirSync(dir)).toEqual([]);
  });
});
