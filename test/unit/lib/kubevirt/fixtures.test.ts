/**
 * The self-describing KubeVirt fixtures (test/fixtures/kubevirt/objects/*.yaml): each one's leading comment gives
 * the expected verdict against the bundle test/fixtures/kubevirt/bundle (`allowed:`, then one `error:` or
 * `warning:` line per field error, as `<field>: <message>`).
 */
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { loadBundle, parseDocuments } from "../../../../lib/index.js";

const ROOT = "test/fixtures/kubevirt";
const files = readdirSync(join(ROOT, "objects"))
  .filter((f) => f.endsWith(".yaml"))
  .sort();

function expected(text: string): { allowed: boolean; errors: string[]; warnings: string[] } {
  const lines = text.split("\n").filter((l) => l.startsWith("#"));
  const at = lines.findIndex((l) => l.startsWith("# Expected verdict"));
  if (at < 0) throw new Error("no '# Expected verdict' section");
  const out = { allowed: true, errors: [] as string[], warnings: [] as string[] };
  for (const line of lines.slice(at + 1)) {
    const m = /^#\s+(allowed|error|warning): (.*)$/.exec(line);
    if (m === null) break;
    if (m[1] === "allowed") out.allowed = m[2] === "true";
    else if (m[1] === "error") out.errors.push(m[2]!);
    else out.warnings.push(m[2]!);
  }
  return out;
}

describe("test/fixtures/kubevirt", () => {
  it.each(files.map((file) => ({ file })))("$file gives the verdict its comment promises", async ({ file }) => {
    // Prepare
    const text = readFileSync(join(ROOT, "objects", file), "utf8");
    const set = await loadBundle(join(ROOT, "bundle"));
    const [doc] = parseDocuments(text);
    // Act
    const v = set.validate({ operation: "CREATE", object: doc?.object });
    // Assess
    expect({
      allowed: v.allowed,
      errors: v.errors.map((e) => `${e.field}: ${e.message}`),
      warnings: v.warnings.map((e) => `${e.field}: ${e.message}`),
    }).toEqual(expected(text));
  });
});
