/** Builds tar archives in memory for the archive source's tests (ustar headers, pax and GNU long-name records). */

export interface TarMember {
  name: string;
  content?: string;
  /** Tar type flag: "0" file (default), "5" folder, "2" symlink, "x" pax header, "L" GNU long name. */
  type?: string;
  /** Corrupts the header checksum. */
  badChecksum?: boolean;
}

function header(name: string, size: number, type: string, badChecksum: boolean): Buffer {
  const h = Buffer.alloc(512);
  h.write(name.slice(0, 100), 0, "utf8");
  h.write("0000644\0", 100, "latin1");
  h.write("0000000\0", 108, "latin1");
  h.write("0000000\0", 116, "latin1");
  h.write(`${size.toString(8).padStart(11, "0")}\0`, 124, "latin1");
  h.write("00000000000\0", 136, "latin1");
  h.write(type, 156, "latin1");
  h.write("ustar\0", 257, "latin1");
  h.write("00", 263, "latin1");
  h.fill(0x20, 148, 156);
  let sum = 0;
  for (const b of h) sum += b;
  if (badChecksum) sum += 1;
  h.write(`${sum.toString(8).padStart(6, "0")}\0 `, 148, "latin1");
  return h;
}

export function buildTar(members: readonly TarMember[]): Buffer {
  const parts: Buffer[] = [];
  for (const m of members) {
    const data = Buffer.from(m.content ?? "", "utf8");
    parts.push(header(m.name, data.length, m.type ?? "0", m.badChecksum === true));
    parts.push(data);
    const pad = (512 - (data.length % 512)) % 512;
    parts.push(Buffer.alloc(pad));
  }
  parts.push(Buffer.alloc(1024));
  return Buffer.concat(parts);
}

/** A pax record `<len> path=<value>\n`. */
export function paxPath(path: string): string {
  const body = ` path=${path}\n`;
  let len = body.length + 1;
  while (String(len).length + body.length !== len) len = String(len).length + body.length;
  return `${len}${body}`;
}
