/**
 * A small reader of zip archives (stored and deflated entries, no zip64), enough to look inside the Lambda package
 * that `osls package` writes without an unzip binary.
 */
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join, resolve, sep } from "node:path";
import { inflateRawSync } from "node:zlib";

export interface ZipEntry {
  name: string;
  data: Buffer;
}

export function readZip(file: string): ZipEntry[] {
  const buf = readFileSync(file);
  // End of central directory: signature 0x06054b50, at most 64 KiB of comment after it.
  let eocd = -1;
  for (let i = buf.length - 22; i >= Math.max(0, buf.length - 22 - 65_535); i--) {
    if (buf.readUInt32LE(i) === 0x06054b50) {
      eocd = i;
      break;
    }
  }
  if (eocd < 0) throw new Error(`${file}: not a zip archive`);
  const count = buf.readUInt16LE(eocd + 10);
  let p = buf.readUInt32LE(eocd + 16);
  const entries: ZipEntry[] = [];
  for (let n = 0; n < count; n++) {
    if (buf.readUInt32LE(p) !== 0x02014b50) throw new Error(`${file}: bad central directory`);
    const method = buf.readUInt16LE(p + 10);
    const compressed = buf.readUInt32LE(p + 20);
    const nameLength = buf.readUInt16LE(p + 28);
    const extraLength = buf.readUInt16LE(p + 30);
    const commentLength = buf.readUInt16LE(p + 32);
    const local = buf.readUInt32LE(p + 42);
    const name = buf.toString("utf8", p + 46, p + 46 + nameLength);
    const dataStart = local + 30 + buf.readUInt16LE(local + 26) + buf.readUInt16LE(local + 28);
    const raw = buf.subarray(dataStart, dataStart + compressed);
    if (method !== 0 && method !== 8) throw new Error(`${file}: ${name}: compression method ${method}`);
    if (!name.endsWith("/")) entries.push({ name, data: method === 8 ? inflateRawSync(raw) : Buffer.from(raw) });
    p += 46 + nameLength + extraLength + commentLength;
  }
  return entries;
}

/** Writes the entries under `dir` (refusing names that leave it). */
export function extractZip(file: string, dir: string): string[] {
  const root = resolve(dir);
  const names: string[] = [];
  for (const e of readZip(file)) {
    const target = resolve(join(root, e.name));
    if (!target.startsWith(root + sep)) throw new Error(`${file}: entry ${e.name} leaves the target folder`);
    mkdirSync(dirname(target), { recursive: true });
    writeFileSync(target, e.data);
    names.push(e.name);
  }
  return names;
}
