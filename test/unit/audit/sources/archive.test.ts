/**
 * audit/sources/archive.ts `archiveUnits`: the one reader of archive bytes, shared by local archives and S3 archive
 * objects. The display name given is the one units and locations carry (`<name>!<member>`, `{ file, entry }`).
 */
import { gzipSync } from "node:zlib";
import { describe, expect, it } from "vitest";
import { archiveErrorUnit, archiveTooLarge, archiveUnits } from "../../../../audit/sources/archive.js";
import { DEFAULT_SOURCE_OPTIONS, type SourceDoc, type SourceUnit } from "../../../../audit/sources/index.js";
import { buildTar } from "../../../helpers/tar.js";

const CM = (name: string) => `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ${name}\n`;

async function collect(units: AsyncIterable<SourceUnit>): Promise<{ names: string[]; docs: SourceDoc[] }> {
  const names: string[] = [];
  const docs: SourceDoc[] = [];
  for await (const unit of units) {
    names.push(unit.name);
    docs.push(...(await unit.read()));
  }
  return { names, docs };
}

const NAME = "s3://bucket/snapshots/snap.tgz";

describe("archiveUnits", () => {
  const tar = buildTar([
    { name: "snap/a.yaml", content: CM("a") },
    { name: "snap/readme.txt", content: "not read" },
    { name: "snap/../../up.yaml", content: CM("up") },
    { name: "snap/b.json", content: JSON.stringify({ apiVersion: "v1", kind: "ConfigMap", metadata: { name: "b" } }) },
  ]);

  it.each([
    { name: "a tar stream", bytes: tar },
    { name: "a gzip-compressed tar stream", bytes: gzipSync(tar) },
  ])("names units and locations after the display name given, for $name", async ({ bytes }) => {
    const { names, docs } = await collect(archiveUnits(bytes, NAME, DEFAULT_SOURCE_OPTIONS));
    expect(names).toEqual([`${NAME}!snap/a.yaml`, `${NAME}!snap/../../up.yaml`, `${NAME}!snap/b.json`]);
    expect(
      docs.map((d) => ({
        kind: d.kind,
        location: d.location,
        ...(d.kind === "object" && { name: (d.object.metadata as { name: string }).name }),
        ...(d.kind === "error" && { error: d.error }),
      })),
    ).toEqual([
      { kind: "object", location: { file: NAME, entry: "snap/a.yaml", document: 0, line: 1 }, name: "a" },
      {
        kind: "error",
        location: { file: NAME, entry: "snap/../../up.yaml" },
        error: 'member name "snap/../../up.yaml" climbs out of the archive (..)',
      },
      { kind: "object", location: expect.objectContaining({ file: NAME, entry: "snap/b.json" }), name: "b" },
    ]);
  });

  it("reports a member over maxFileBytes as an input error of that member and reads the others", async () => {
    const bytes = buildTar([
      { name: "big.yaml", content: CM("x".repeat(200)) },
      { name: "small.yaml", content: CM("s") },
    ]);
    const { docs } = await collect(archiveUnits(bytes, NAME, { ...DEFAULT_SOURCE_OPTIONS, maxFileBytes: 100 }));
    expect(docs.map((d) => d.kind)).toEqual(["error", "object"]);
    expect(docs[0]).toEqual({
      kind: "error",
      location: { file: NAME, entry: "big.yaml" },
      error: expect.stringMatching(/^member is \d+ bytes, over the limit of 100 bytes per input file$/),
    });
  });

  it.each([
    { name: "random bytes", bytes: Buffer.from("this is not a tar archive at all, only text".repeat(20)) },
    { name: "a broken gzip stream", bytes: Buffer.from([0x1f, 0x8b, 8, 0, 1, 2, 3, 4]) },
  ])("reports $name as one input error of the archive", async ({ bytes }) => {
    const { names, docs } = await collect(archiveUnits(bytes, NAME, DEFAULT_SOURCE_OPTIONS));
    expect(names).toEqual([NAME]);
    expect(docs).toEqual([
      { kind: "error", location: { file: NAME }, error: expect.stringMatching(/^not a readable (tar archive|gzip)/) },
    ]);
  });

  it("keeps members read before a truncated part, then reports the archive", async () => {
    const whole = buildTar([
      { name: "a.yaml", content: CM("a") },
      { name: "b.yaml", content: CM("b") },
    ]);
    const { docs } = await collect(archiveUnits(whole.subarray(0, 1024 + 520), NAME, DEFAULT_SOURCE_OPTIONS));
    expect(docs.map((d) => (d.kind === "error" ? d.error : d.kind))).toEqual([
      "object",
      expect.stringMatching(/^not a readable tar archive: member at offset 1024 is truncated/),
    ]);
  });

  it("builds the error unit and the size message the callers use before reading bytes", async () => {
    const unit = archiveErrorUnit(NAME, archiveTooLarge(2048, { ...DEFAULT_SOURCE_OPTIONS, maxArchiveBytes: 1024 }));
    expect(unit.name).toBe(NAME);
    expect(await unit.read()).toEqual([
      { kind: "error", location: { file: NAME }, error: "archive is 2048 bytes, over the limit of 1024" },
    ]);
  });
});
