/** A file's live text: read as it is rendered, spilled while nobody reads it, bounded while its reader lags. */
import { describe, expect, it } from "vitest";
import { LiveText } from "../../../../audit/report/live-text.js";
import { textOf } from "../../../../audit/report/stream.js";
import { TextSpool } from "../../../../audit/text-spool.js";

function spooled(): { live: LiveText; spools: TextSpool[] } {
  const spools: TextSpool[] = [];
  const live = new LiveText(() => {
    // On disk at once: the spilled text is read back from its file.
    const s = new TextSpool({ memoryBytes: 0 });
    spools.push(s);
    return s;
  });
  return { live, spools };
}

const tick = () => new Promise<void>((resolve) => setImmediate(resolve));

describe("LiveText", () => {
  it("gives a reader the text in whole chunks as it comes, and makes the writer wait while too much waits", async () => {
    const { live, spools } = spooled();
    const reader = live.chunks()[Symbol.asyncIterator]();
    const first = reader.next();
    await tick();
    const piece = "x".repeat(1000);
    for (let i = 0; i < 5000; i++) live.append(piece);
    // Four whole chunks of a MiB wait (the rest is in the chunk being filled).
    expect(live.backlog).toBe(4 * 1024 * 1024);
    let drained = false;
    const waiting = live.drained(2 * 1024 * 1024).then(() => {
      drained = true;
    });
    const got: Uint8Array[] = [(await first).value as Uint8Array];
    // The reader took one: three wait, over the bound of two, so the writer still waits.
    expect(live.backlog).toBe(3 * 1024 * 1024);
    await tick();
    expect(drained).toBe(false);
    got.push((await reader.next()).value as Uint8Array);
    await waiting;
    expect(drained).toBe(true);
    live.append("end");
    live.close();
    for (let r = await reader.next(); r.done !== true; r = await reader.next()) got.push(r.value as Uint8Array);
    expect(got.slice(0, 4).map((c) => c.length)).toEqual(Array(4).fill(1024 * 1024));
    expect(Buffer.concat(got).toString()).toBe(`${piece.repeat(5000)}end`);
    // Nothing was spilled: the reader was there first.
    expect(spools).toHaveLength(0);
  });

  it("spills what comes before its reader, which reads it first", async () => {
    const { live, spools } = spooled();
    live.append("one\n");
    live.append("two é\n");
    expect(live.backlog).toBe(0);
    const text = textOf(live.chunks());
    live.append("three\n");
    live.close();
    expect(await text).toBe("one\ntwo é\nthree\n");
    expect(spools).toHaveLength(1);
    expect(spools[0]!.onDisk).toBe(true);
    for (const s of spools) s.dispose();
  });

  it("is read once", async () => {
    const { live } = spooled();
    live.close();
    expect(await textOf(live.chunks())).toBe("");
    await expect(textOf(live.chunks())).rejects.toThrow(/read twice/);
  });

  it("drops the rest when its reader stops, so the writer never waits for it", async () => {
    const { live } = spooled();
    const reader = live.chunks()[Symbol.asyncIterator]();
    const first = reader.next();
    await tick();
    live.append("a".repeat(1_100_000));
    expect((await first).value).toHaveLength(1024 * 1024);
    await reader.return(undefined);
    live.append("b".repeat(3_000_000));
    expect(live.backlog).toBe(0);
    await live.drained(0);
  });

  it("fails its reader with the writer's error", async () => {
    const { live } = spooled();
    const text = textOf(live.chunks());
    await tick();
    live.append("partial");
    live.fail(new Error("the pass failed"));
    await expect(text).rejects.toThrow("the pass failed");
  });
});
