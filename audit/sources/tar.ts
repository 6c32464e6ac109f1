/**
 * A small reader of tar streams (POSIX ustar and pax, GNU long names), as `git archive` and `tar` write them. Only
 * regular files are returned; folders, links and devices are passed over (nothing is ever extracted to disk, and
 * links are never followed). Member names are untrusted: a name that is absolute or climbs out of the archive
 * (`../`) is returned as a rejected entry, so the caller reports it and goes on.
 */

import { fileTooLarge } from "./types.js";
export type TarEntry =
  | { kind: "file"; name: string; data: Buffer }
  | { kind: "rejected"; name: string; reason: string };

export interface TarLimits {
  /** Largest member. */
  maxEntryBytes: number;
  /** Most members (files, folders and headers of any kind). */
  maxEntries: number;
}

/** A malformed archive: the caller reports the archive as one input error. */
export class TarFormatError extends Error {
  override readonly name = "TarFormatError";
}

const BLOCK = 512;

/** The members of a tar stream, in order. */
export function* readTar(buf: Buffer, limits: TarLimits): Generator<TarEntry> {
  let offset = 0;
  let entries = 0;
  let paxName: string | undefined;
  let longName: string | undefined;
  while (offset + BLOCK <= buf.length) {
    const header = buf.subarray(offset, offset + BLOCK);
    if (isZeroBlock(header)) return; // end of archive (two zero blocks; one is enough to stop)
    if (++entries > limits.maxEntries) throw new TarFormatError(`more than ${limits.maxEntries} members`);
    if (!checksumOk(header)) throw new TarFormatError(`bad header checksum at offset ${offset}`);
    const type = String.fromCharCode(header[156] ?? 0);
    const size = readSize(header.subarray(124, 136), offset);
    const dataStart = offset + BLOCK;
    const dataEnd = dataStart + size;
    if (dataEnd > buf.length) throw new TarFormatError(`member at offset ${offset} is truncated`);
    offset = dataStart + Math.ceil(size / BLOCK) * BLOCK;

    switch (type) {
      case "x": // pax extended header for the next member
        paxName = paxPath(buf.subarray(dataStart, dataEnd)) ?? paxName;
        continue;
      case "g": // pax global header (git archive: the commit id)
        continue;
      case "L": // GNU long name for the next member
        longName = cString(buf.subarray(dataStart, dataEnd));
        continue;
      case "K":
        continue;
    }
    const name = paxName ?? longName ?? headerName(header);
    paxName = undefined;
    longName = undefined;
    if (type !== "0" && type !== "\0" && type !== "7") continue; // folders, links, devices, FIFOs
    const reason = unsafeName(name);
    if (reason !== undefined) {
      yield { kind: "rejected", name, reason };
      continue;
    }
    if (size > limits.maxEntryBytes) {
      yield { kind: "rejected", name, reason: fileTooLarge("member", size, limits.maxEntryBytes) };
      continue;
    }
    yield { kind: "file", name: name.replace(/^(\.\/)+/, ""), data: buf.subarray(dataStart, dataEnd) };
  }
}

/** Why a member name cannot be trusted, or undefined. */
function unsafeName(name: string): string | undefined {
  if (name === "") return "empty member name";
  if (name.includes("\0")) return "member name contains a NUL byte";
  if (name.startsWith("/") || name.startsWith("\\") || /^[A-Za-z]:/.test(name)) {
    return `absolute member name ${JSON.stringify(name)} rejected`;
  }
  if (name.split(/[/\\]/).includes("..")) return `member name ${JSON.stringify(name)} climbs out of the archive (..)`;
  return undefined;
}

function isZeroBlock(b: Buffer): boolean {
  for (let i = 0; i < b.length; i++) if (b[i] !== 0) return false;
  return true;
}

function checksumOk(header: Buffer): boolean {
  const stored = parseOctal(header.subarray(148, 156));
  if (stored === undefined) return false;
  let sum = 0;
  for (let i = 0; i < BLOCK; i++) sum += i >= 148 && i < 156 ? 0x20 : (header[i] ?? 0);
  return sum === stored;
}

function readSize(field: Buffer, offset: number): number {
  const first = field[0] ?? 0;
  if ((first & 0x80) !== 0) {
    // GNU base-256: big-endian binary in the remaining bytes.
    let v = 0;
    for (let i = 1; i < field.length; i++) v = v * 256 + (field[i] ?? 0);
    if (!Number.isSafeInteger(v)) throw new TarFormatError(`member size at offset ${offset} is too large`);
    return v;
  }
  const v = parseOctal(field);
  if (v === undefined) throw new TarFormatError(`bad member size at offset ${offset}`);
  return v;
}

function parseOctal(field: Buffer): number | undefined {
  const s = cString(field).trim();
  if (s === "") return 0;
  if (!/^[0-7]+$/.test(s)) return undefined;
  return Number.parseInt(s, 8);
}

function cString(b: Buffer): string {
  const end = b.indexOf(0);
  return b.subarray(0, end < 0 ? b.length : end).toString("utf8");
}

function headerName(header: Buffer): string {
  const name = cString(header.subarray(0, 100));
  const isUstar = header.subarray(257, 262).toString("latin1") === "ustar";
  const prefix = isUstar ? cString(header.subarray(345, 500)) : "";
  return prefix === "" ? name : `${prefix}/${name}`;
}

/** The `path` record of a pax header (`<len> path=<value>\n` records). */
function paxPath(data: Buffer): string | undefined {
  let i = 0;
  let path: string | undefined;
  while (i < data.length) {
    const space = data.indexOf(0x20, i);
    if (space < 0) break;
    const len = Number.parseInt(data.subarray(i, space).toString("latin1"), 10);
    if (!Number.isSafeInteger(len) || len <= 0 || i + len > data.length) break;
    const record = data.subarray(space + 1, i + len - 1).toString("utf8");
    const eq = record.indexOf("=");
    if (eq > 0 && record.slice(0, eq) === "path") path = record.slice(eq + 1);
    i += len;
  }
  return path;
}
