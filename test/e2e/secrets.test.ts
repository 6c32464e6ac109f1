/**
 * Planted secrets through every surface: values put into credential-named fields of objects (invalid, so their
 * errors are reported; quoted by a messageExpression; unchanged on an UPDATE, so ratcheted) never appear in any file
 * of any report format, nor in tollgate validate's text and JSON output. Bundle: test/fixtures/bundles/secrets.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { ROOT, runCommand } from "../helpers/spawn.js";

const BUNDLE = join(ROOT, "test/fixtures/bundles/secrets");
const dir = mkdtempSync(join(tmpdir(), "tollgate-secrets-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const vault = (name: string, spec: Record<string, unknown>) =>
  `apiVersion: fuzz.tollgate.dev/v1\nkind: Vault\nmetadata:\n  name: ${name}\n  namespace: ns\nspec: ${JSON.stringify(spec)}\n`;

const OBJECTS = [
  vault("a", { password: "PLANTED-pw-1", dbPassword: "PLANTED-db-2", apiToken: "PLANTED-tok-3" }),
  vault("b", { accessToken: "PLANTED-4", sshPrivateKey: "PLANTED-5", tlsKey: "PLANTED-6", webhookSecret: "PLANTED-7" }),
  vault("c", { connectionString: "PLANTED-8", dsn: "PLANTED-9", tokens: ["PLANTED-10", "PLANTED-10"] }),
  vault("d", { credentials: { db: "PLANTED-11" }, password: "plantedlower" }),
].join("---\n");

function tollgate(args: string[]) {
  return runCommand(process.execPath, ["audit/cli/bin.js", ...args], { env: { ...process.env, NO_COLOR: "1" } });
}

function filesUnder(root: string): string[] {
  const out: string[] = [];
  for (const name of readdirSync(root)) {
    const p = join(root, name);
    if (statSync(p).isDirectory()) out.push(...filesUnder(p));
    else out.push(p);
  }
  return out;
}

const PLANTED = /PLANTED|plantedlower/i;

describe("planted secrets", () => {
  it("appear in no file of any report format", async () => {
    const input = join(dir, "objects.yaml");
    writeFileSync(input, OBJECTS);
    const out = join(dir, "reports");
    const r = await tollgate(["audit", "--bundle", BUNDLE, "--out", out, "--fail-on", "never", input]);
    expect(r.code).toBe(0);
    const files = filesUnder(out);
    expect(files.length).toBeGreaterThan(8);
    for (const f of files)
      expect({ file: f, leak: PLANTED.test(readFileSync(f, "utf8")) }).toEqual({ file: f, leak: false });
    // The findings are there, with their values redacted.
    const all = files.map((f) => readFileSync(f, "utf8")).join("\n");
    expect(all).toContain("<redacted>");
  });

  it.each(["text", "json"])(
    "appear nowhere in tollgate validate -o %s, an UPDATE's ratcheted warnings included",
    async (output) => {
      const input = join(dir, `new-${output}.yaml`);
      writeFileSync(input, OBJECTS);
      const r = await tollgate(["validate", "--bundle", BUNDLE, "-o", output, "--old", input, input]);
      expect(r.stdout + r.stderr).not.toMatch(PLANTED);
      expect(r.stdout + r.stderr).toContain("<redacted>");
      const create = await tollgate(["validate", "--bundle", BUNDLE, "-o", output, input]);
      expect(create.code).toBe(1);
      expect(create.stdout + create.stderr).not.toMatch(PLANTED);
    },
  );
});
