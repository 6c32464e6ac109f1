/**
 * The `tollgate` CLI as a black box (kubeconform's bats tests): spawn `node audit/cli/bin.js` — what `npx tollgate`
 * runs, with no build step — and check exit codes and exact text.
 *
 * Object fixtures describe themselves: a leading comment says what the case checks and gives the expected output
 * after `# Expected output (exit N):`, one `#   <line>` per line. Runs of `* ` cause lines are compared in any
 * order (the API server does not sort causes), trailing spaces are ignored (the multi-cause header's trailing space
 * is checked exactly below), and an expected line ending in `...` matches any line that starts with the rest.
 */
import {
  copyFileSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { parse as parseYaml } from "yaml";
import { ROOT, runCommand } from "../helpers/spawn.js";

const GADGETS = "test/fixtures/bundles/gadgets";
const BROKEN = "test/fixtures/bundles/broken-crd";
const OBJECTS = "test/fixtures/objects/gadgets";
const UPDATES = "test/fixtures/objects/gadgets-update";
const STATUS = "test/fixtures/objects/gadgets-status";

/**
 * A file whose second document is not YAML (an unclosed flow mapping). It is written at run time, not kept under
 * test/fixtures, because Biome parses every *.yaml file of the repository and would fail `npm run lint` on it.
 */
const DECODE_ERROR_YAML = `# Checks: an undecodable document is reported and the others are still validated.
apiVersion: fixtures.tollgate.dev/v1
kind: Gadget
metadata:
  name: before
spec:
  color: red
---
apiVersion: fixtures.tollgate.dev/v1
kind: Gadget
metadata:
  name: broken
spec: {color: red
---
apiVersion: fixtures.tollgate.dev/v1
kind: Gadget
metadata:
  name: after
spec:
  color: blue
`;

const scratch = mkdtempSync(join(tmpdir(), "tollgate-e2e-"));
const DECODE_ERROR_FILE = join(scratch, "decode-error.yaml");
writeFileSync(DECODE_ERROR_FILE, DECODE_ERROR_YAML);
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

function run(command: string, args: readonly string[], options: { stdin?: string; env?: Record<string, string> } = {}) {
  return runCommand(command, args, {
    env: { ...process.env, NO_COLOR: "1", ...options.env },
    stdin: options.stdin ?? "",
  });
}

/** `tollgate <args>`, with an environment free of TOLLGATE_* settings from the caller's shell. */
function tollgate(args: readonly string[], options: { stdin?: string; env?: Record<string, string> } = {}) {
  const env: Record<string, string> = {
    TOLLGATE_BUNDLE: "",
    TOLLGATE_OUTPUT: "",
    TOLLGATE_CPUPROFILE_FILE: "",
    TOLLGATE_MAX_INPUT_BYTES: "",
    ...options.env,
  };
  return run(process.execPath, ["audit/cli/bin.js", ...args], { ...options, env });
}

interface Expectation {
  exitCode: number;
  /** The exit code as text, for test titles. */
  exit: string;
  lines: string[];
}

/** The `# Expected output (exit N):` block of a fixture's leading comment, or undefined when it has none. */
function readExpectation(file: string): Expectation | undefined {
  const lines = readFileSync(join(ROOT, file), "utf8").split("\n");
  const start = lines.findIndex((l) => /^# Expected output \(exit \d\):$/.test(l));
  if (start < 0) return undefined;
  const exitCode = Number(/\(exit (\d)\)/.exec(lines[start]!)![1]);
  const expected: string[] = [];
  for (const line of lines.slice(start + 1)) {
    if (!line.startsWith("#   ")) break;
    expected.push(line.slice(4));
  }
  return { exitCode, exit: String(exitCode), lines: expected };
}

/** Lines with trailing spaces dropped and each run of `* ` cause lines sorted. */
function normalise(lines: readonly string[]): string[] {
  const out: string[] = [];
  let causes: string[] = [];
  const flush = () => {
    out.push(...causes.sort());
    causes = [];
  };
  for (const raw of lines) {
    const line = raw.trimEnd();
    if (line.startsWith("* ")) causes.push(line);
    else {
      flush();
      out.push(line);
    }
  }
  flush();
  return out;
}

/** Compares output lines to expected lines; returns the pair to give to `toEqual` for a readable diff. */
function compare(actual: readonly string[], expected: readonly string[]): [string[], string[]] {
  const a = normalise(actual);
  const e = normalise(expected);
  const shown = a.map((line, i) => {
    const want = e[i];
    return want?.endsWith("...") && line.startsWith(want.slice(0, -3)) ? want : line;
  });
  return [shown, e];
}

function outputLines(stdout: string): string[] {
  const lines = stdout.split("\n");
  if (lines[lines.length - 1] === "") lines.pop();
  return lines;
}

function yamlFiles(folder: string): string[] {
  return readdirSync(join(ROOT, folder))
    .filter((f) => f.endsWith(".yaml"))
    .sort()
    .map((f) => `${folder}/${f}`);
}

const fixtureCases = yamlFiles(OBJECTS).flatMap((file) => {
  const expectation = readExpectation(file);
  return expectation === undefined ? [] : [{ file, ...expectation }];
});

const exampleCases = yamlFiles("examples/objects").flatMap((file) => {
  const expectation = readExpectation(file);
  return expectation === undefined ? [] : [{ file, ...expectation }];
});

describe("tollgate validate: self-describing fixtures", () => {
  it("has fixtures to run", () => {
    expect(fixtureCases.length).toBeGreaterThanOrEqual(6);
  });

  it.each(fixtureCases)("$file exits $exit with its expected output", async ({ file, exitCode, lines }) => {
    // Act
    const result = await tollgate(["validate", "--bundle", GADGETS, file]);

    // Assess
    const [actual, expected] = compare(outputLines(result.stdout), lines);
    expect(actual).toEqual(expected);
    expect(result.code).toBe(exitCode);
  });
});

describe("tollgate validate: exact text", () => {
  it("prints one line for a valid object and exits 0", async () => {
    const result = await tollgate(["validate", "--bundle", GADGETS, `${OBJECTS}/gadget-valid.yaml`]);

    expect(result).toEqual({ code: 0, stdout: "gadget.fixtures.tollgate.dev/ok valid\n", stderr: "" });
  });

  it("prints kubectl's one-line message for one cause and exits 1", async () => {
    const result = await tollgate(["validate", "--bundle", GADGETS, `${OBJECTS}/gadget-count-too-high.yaml`]);

    expect(result.stdout).toBe(
      'The Gadget "too-high" is invalid: spec.count: Invalid value: 6: spec.count in body should be less than or equal to 5\n',
    );
    expect(result.code).toBe(1);
  });

  it("prints kubectl's MultilineError for several causes: the prefix with its trailing space, then '* ' lines", async () => {
    const result = await tollgate(["validate", "--bundle", GADGETS, `${OBJECTS}/gadget-several.yaml`]);

    const lines = outputLines(result.stdout);
    expect(lines[0]).toBe('The Gadget "several" is invalid: ');
    expect(lines.slice(1).sort()).toEqual([
      "* spec.color: Required value",
      "* spec.label: Too long: may not be more than 8 bytes",
      '* spec.parts[1]: Duplicate value: {"name":"wheel"}',
    ]);
    expect(result.code).toBe(1);
  });

  it("reports an undecodable document with file, document and line, and still validates the others", async () => {
    const result = await tollgate(["validate", "--bundle", GADGETS, DECODE_ERROR_FILE]);

    const lines = outputLines(result.stdout);
    expect(lines).toHaveLength(3);
    expect(lines[0]).toBe("gadget.fixtures.tollgate.dev/before valid");
    // Documents are numbered from 0, as the library numbers them; the line is where the document's content starts.
    expect(lines[1]?.startsWith(`${DECODE_ERROR_FILE}: document 1 (line 9): `)).toBe(true);
    expect(lines[1]!.length).toBeGreaterThan(`${DECODE_ERROR_FILE}: document 1 (line 9): `.length);
    expect(lines[2]).toBe("gadget.fixtures.tollgate.dev/after valid");
    expect(result.code).toBe(1);
  });

  it("reads a .yaml file of JSON documents separated by --- lines as kubectl 1.36 does, as input and as a bundle", async () => {
    // Prepare: the gadgets CRD and two objects, each written as JSON, one per document of a .yaml file.
    const asJsonDocuments = (...docs: unknown[]) => `${docs.map((d) => JSON.stringify(d, null, 2)).join("\n---\n")}\n`;
    const bundle = join(scratch, "json-documents-bundle");
    mkdirSync(bundle);
    const crd = parseYaml(readFileSync(join(ROOT, GADGETS, "gadget-crd.yaml"), "utf8"));
    writeFileSync(join(bundle, "gadget-crd.yaml"), asJsonDocuments(crd));
    const gadget = (name: string, count: number) => ({
      apiVersion: "fixtures.tollgate.dev/v1",
      kind: "Gadget",
      metadata: { name },
      spec: { color: "red", count },
    });
    const input = join(scratch, "json-documents.yaml");
    writeFileSync(input, asJsonDocuments(gadget("first", 1), gadget("second", 6)));

    // Act
    const result = await tollgate(["validate", "--bundle", bundle, input]);

    // Assess
    expect(result.stdout).toBe(
      "gadget.fixtures.tollgate.dev/first valid\n" +
        'The Gadget "second" is invalid: spec.count: Invalid value: 6: spec.count in body should be less than or equal to 5\n',
    );
    expect(result.stderr).toBe("");
    expect(result.code).toBe(1);
  });

  it('reads JSON from standard input with "-"', async () => {
    const object = {
      apiVersion: "fixtures.tollgate.dev/v1",
      kind: "Gadget",
      metadata: { name: "from-stdin" },
      spec: { color: "red", count: "three" },
    };

    const result = await tollgate(["validate", "--bundle", GADGETS, "-"], { stdin: JSON.stringify(object) });

    expect(result.stdout).toBe(
      'The Gadget "from-stdin" is invalid: spec.count: Invalid value: "string": spec.count in body must be of type integer: "string"\n',
    );
    expect(result.code).toBe(1);
  });

  it("validates every file under a folder, in name order, and exits 1 when one is invalid", async () => {
    const result = await tollgate(["validate", "--bundle", GADGETS, "--summary", OBJECTS]);

    const lines = outputLines(result.stdout);
    expect(lines[0]).toBe("configmap/plain skipped (no policy for v1/ConfigMap)");
    expect(lines).toContain("gadget.fixtures.tollgate.dev/ok valid");
    expect(lines[lines.length - 1]).toMatch(
      /^Summary: \d+ objects in 7 files: \d+ valid, \d+ invalid, 1 skipped, 1 error$/,
    );
    expect(result.code).toBe(1);
  });

  it("reads a bundle and objects mounted from ConfigMaps (files linked through ..data) as plain folders", async () => {
    // Prepare: the kubelet's atomic-writer layout for both folders.
    const mount = (from: string, name: string): string => {
      const dir = join(scratch, name);
      mkdirSync(join(dir, "..2026_11_22_02_15_00.1"), { recursive: true });
      symlinkSync("..2026_11_22_02_15_00.1", join(dir, "..data"));
      for (const file of readdirSync(join(ROOT, from))) {
        copyFileSync(join(ROOT, from, file), join(dir, "..2026_11_22_02_15_00.1", file));
        symlinkSync(join("..data", file), join(dir, file));
      }
      return dir;
    };
    const plain = await tollgate(["validate", "--bundle", GADGETS, "--summary", OBJECTS]);

    // Act
    const mounted = await tollgate([
      "validate",
      "--bundle",
      mount(GADGETS, "bundle-mount"),
      "--summary",
      mount(OBJECTS, "objects-mount"),
    ]);

    // Assess: the same results, file names aside.
    const names = (out: string, folder: string) => out.split(folder).join("<objects>");
    expect(names(mounted.stdout, join(scratch, "objects-mount"))).toBe(names(plain.stdout, OBJECTS));
    expect(mounted.stdout).toMatch(/Summary: \d+ objects in 7 files/);
    expect(mounted.code).toBe(plain.code);
  });

  it("fails closed on a bundle document that cannot be decoded: every object is rejected naming it, exit 1", async () => {
    // Prepare: the gadgets bundle plus a document that does not decode (it may have held any kind's policy).
    const bundle = join(scratch, "undecodable-bundle");
    mkdirSync(bundle);
    writeFileSync(join(bundle, "gadget-crd.yaml"), readFileSync(join(ROOT, GADGETS, "gadget-crd.yaml")));
    writeFileSync(join(bundle, "more.yaml"), "apiVersion: v1\nkind: [\n");

    // Act
    const result = await tollgate(["validate", "--bundle", bundle, `${OBJECTS}/configmap.yaml`]);

    // Assess: the ConfigMap used to print "skipped" and the run exited 0, with only a warning on stderr.
    expect(result.stdout).toBe(
      'The ConfigMap "plain" is invalid: kind: Internal error: the policy for v1/ConfigMap may be in more.yaml#0, which cannot be used: document 0 (line 1): line 2, column 8: Flow sequence in block collection must be sufficiently indented and end with a ]\n',
    );
    expect(result.stderr).toBe(
      `error: the bundle ${bundle} has 1 policy failure of severity error; run 'tollgate lint --bundle ${bundle}' for details\n`,
    );
    expect(result.code).toBe(1);
  });

  it("exits 1 on a bundle with an error-severity policy failure even when no object is of a kind it breaks", async () => {
    const result = await tollgate(["validate", "--bundle", BROKEN, `${OBJECTS}/configmap.yaml`]);

    expect(result.stdout).toBe("configmap/plain skipped (no policy for v1/ConfigMap)\n");
    expect(result.stderr).toMatch(/^error: the bundle \S+ has 2 policy failures of severity error; /);
    expect(result.code).toBe(1);
  });

  it("uses --bundle from TOLLGATE_BUNDLE", async () => {
    const result = await tollgate(["validate", `${OBJECTS}/gadget-valid.yaml`], { env: { TOLLGATE_BUNDLE: GADGETS } });

    expect(result.stdout).toBe("gadget.fixtures.tollgate.dev/ok valid\n");
    expect(result.code).toBe(0);
  });
});

describe("tollgate validate --old (UPDATE)", () => {
  it("allows an update that keeps an already invalid value (ratcheting)", async () => {
    const result = await tollgate([
      "validate",
      "--bundle",
      GADGETS,
      "--old",
      `${UPDATES}/old.yaml`,
      `${UPDATES}/update-unchanged-count.yaml`,
    ]);

    expect(result.stdout).toBe("gadget.fixtures.tollgate.dev/legacy valid\n");
    expect(result.code).toBe(0);
  });

  it("rejects the same object on CREATE", async () => {
    const result = await tollgate(["validate", "--bundle", GADGETS, `${UPDATES}/update-unchanged-count.yaml`]);

    expect(result.stdout).toBe(
      'The Gadget "legacy" is invalid: spec.count: Invalid value: 9: spec.count in body should be less than or equal to 5\n',
    );
    expect(result.code).toBe(1);
  });

  it.each(
    yamlFiles(UPDATES).flatMap((file) => {
      const e = readExpectation(file);
      return e === undefined ? [] : [{ file, ...e }];
    }),
  )("$file against old.yaml exits $exit with its expected output", async ({ file, exitCode, lines }) => {
    const result = await tollgate(["validate", "--bundle", GADGETS, "--old", `${UPDATES}/old.yaml`, file]);

    const [actual, expected] = compare(outputLines(result.stdout), lines);
    expect(actual).toEqual(expected);
    expect(result.code).toBe(exitCode);
  });

  it("validates only .status on an update of the status subresource", async () => {
    const file = `${STATUS}/status-update.yaml`;
    const expected = readExpectation(file)!;

    const result = await tollgate([
      "validate",
      "--bundle",
      GADGETS,
      "--old",
      `${STATUS}/old.yaml`,
      "--subresource",
      "status",
      file,
    ]);

    expect(outputLines(result.stdout)).toEqual(expected.lines);
    expect(result.code).toBe(expected.exitCode);
  });

  it("reports an object with no stored counterpart as an input error (exit 1)", async () => {
    const result = await tollgate([
      "validate",
      "--bundle",
      GADGETS,
      "--old",
      `${UPDATES}/old.yaml`,
      `${OBJECTS}/gadget-valid.yaml`,
      `${OBJECTS}/configmap.yaml`,
    ]);

    expect(outputLines(result.stdout)).toEqual([
      `${OBJECTS}/gadget-valid.yaml: document 0 (line 5): no stored object with apiVersion fixtures.tollgate.dev/v1, kind Gadget, namespace "default", name "ok" in ${UPDATES}/old.yaml to update`,
      "configmap/plain skipped (no policy for v1/ConfigMap)",
    ]);
    expect(result.code).toBe(1);
  });

  it("allows a DELETE, which CRD schemas do not check", async () => {
    const result = await tollgate([
      "validate",
      "--bundle",
      GADGETS,
      "--operation",
      "DELETE",
      `${OBJECTS}/gadget-count-too-high.yaml`,
    ]);

    expect(result.stdout).toBe("gadget.fixtures.tollgate.dev/too-high valid\n");
    expect(result.code).toBe(0);
  });

  it("needs --old for --subresource (exit 2)", async () => {
    const result = await tollgate([
      "validate",
      "--bundle",
      GADGETS,
      "--subresource",
      "status",
      `${STATUS}/status-update.yaml`,
    ]);

    expect(result.code).toBe(2);
    expect(result.stderr).toContain("--subresource status is an UPDATE: give the stored objects with --old <file>");
  });

  it("needs --old for --operation UPDATE (exit 2)", async () => {
    const result = await tollgate([
      "validate",
      "--bundle",
      GADGETS,
      "--operation",
      "UPDATE",
      `${OBJECTS}/gadget-valid.yaml`,
    ]);

    expect(result.code).toBe(2);
    expect(result.stderr).toContain("--operation UPDATE needs --old");
    expect(result.stdout).toBe("");
  });
});

describe("tollgate validate -o json", () => {
  it("prints one entry per object with the API server's Status and the warnings", async () => {
    const result = await tollgate([
      "validate",
      "--bundle",
      GADGETS,
      "-o",
      "json",
      `${OBJECTS}/gadget-valid.yaml`,
      `${OBJECTS}/gadget-count-too-high.yaml`,
      `${OBJECTS}/gadget-unknown-field.yaml`,
      `${OBJECTS}/configmap.yaml`,
    ]);

    expect(result.code).toBe(1);
    const entries: unknown = JSON.parse(result.stdout);
    expect(entries).toEqual([
      {
        file: `${OBJECTS}/gadget-valid.yaml`,
        document: 0,
        line: expect.any(Number),
        apiVersion: "fixtures.tollgate.dev/v1",
        kind: "Gadget",
        namespace: "default",
        name: "ok",
        outcome: "valid",
        status: { kind: "Status", apiVersion: "v1", metadata: {}, status: "Success", code: 200 },
        warnings: [],
      },
      {
        file: `${OBJECTS}/gadget-count-too-high.yaml`,
        document: 0,
        line: expect.any(Number),
        apiVersion: "fixtures.tollgate.dev/v1",
        kind: "Gadget",
        name: "too-high",
        outcome: "invalid",
        status: {
          kind: "Status",
          apiVersion: "v1",
          metadata: {},
          status: "Failure",
          message:
            'Gadget.fixtures.tollgate.dev "too-high" is invalid: spec.count: Invalid value: 6: spec.count in body should be less than or equal to 5',
          reason: "Invalid",
          details: {
            name: "too-high",
            group: "fixtures.tollgate.dev",
            kind: "Gadget",
            causes: [
              {
                reason: "FieldValueInvalid",
                message: "Invalid value: 6: spec.count in body should be less than or equal to 5",
                field: "spec.count",
              },
            ],
          },
          code: 422,
        },
        warnings: [],
      },
      {
        file: `${OBJECTS}/gadget-unknown-field.yaml`,
        document: 0,
        line: expect.any(Number),
        apiVersion: "fixtures.tollgate.dev/v1",
        kind: "Gadget",
        name: "pruned",
        outcome: "valid",
        status: { kind: "Status", apiVersion: "v1", metadata: {}, status: "Success", code: 200 },
        warnings: ['unknown field "spec.size"'],
      },
      {
        file: `${OBJECTS}/configmap.yaml`,
        document: 0,
        line: expect.any(Number),
        apiVersion: "v1",
        kind: "ConfigMap",
        name: "plain",
        outcome: "skipped",
        status: {
          kind: "Status",
          apiVersion: "v1",
          metadata: {},
          status: "Success",
          message: "no policy for v1/ConfigMap",
          code: 200,
        },
        warnings: [],
      },
    ]);
  });

  it("gives an undecodable document a 400 BadRequest Status and outcome error", async () => {
    const result = await tollgate(["validate", "--bundle", GADGETS, "-o", "json", DECODE_ERROR_FILE]);

    expect(result.code).toBe(1);
    const entries = JSON.parse(result.stdout) as Record<string, unknown>[];
    expect(entries.map((e) => e.outcome)).toEqual(["valid", "error", "valid"]);
    expect(entries[1]).toEqual({
      file: DECODE_ERROR_FILE,
      document: 1,
      line: expect.any(Number),
      outcome: "error",
      status: {
        kind: "Status",
        apiVersion: "v1",
        metadata: {},
        status: "Failure",
        message: expect.any(String),
        reason: "BadRequest",
        code: 400,
      },
      warnings: [],
    });
  });
});

describe("tollgate usage errors exit 2", () => {
  it("rejects an unknown flag", async () => {
    const result = await tollgate(["validate", "--bundle", GADGETS, "--frobnicate", `${OBJECTS}/gadget-valid.yaml`]);

    expect(result.code).toBe(2);
    expect(result.stderr).toBe("error: unknown option '--frobnicate'\nRun 'tollgate validate --help' for usage.\n");
    expect(result.stdout).toBe("");
  });

  it("rejects an unknown command", async () => {
    const result = await tollgate(["frobnicate"]);

    expect(result.code).toBe(2);
    expect(result.stderr).toContain("error: unknown command 'frobnicate'");
  });

  it("rejects a bundle path that does not exist", async () => {
    const result = await tollgate([
      "validate",
      "--bundle",
      "test/fixtures/bundles/nope",
      `${OBJECTS}/gadget-valid.yaml`,
    ]);

    expect(result.code).toBe(2);
    expect(result.stderr).toBe('error: bundle path "test/fixtures/bundles/nope" does not exist\n');
    expect(result.stdout).toBe("");
  });

  it("rejects a missing --bundle", async () => {
    const result = await tollgate(["validate", `${OBJECTS}/gadget-valid.yaml`]);

    expect(result.code).toBe(2);
    expect(result.stderr).toContain("--bundle <path> is required");
  });

  it("rejects an input path that does not exist", async () => {
    const result = await tollgate(["validate", "--bundle", GADGETS, `${OBJECTS}/nope.yaml`]);

    expect(result.code).toBe(2);
    expect(result.stderr).toBe(`error: input path "${OBJECTS}/nope.yaml" does not exist\n`);
  });

  it("rejects an unknown output format", async () => {
    const result = await tollgate(["lint", "--bundle", GADGETS, "-o", "yaml"]);

    expect(result.code).toBe(2);
    expect(result.stderr).toContain("-o/--output must be one of text, json");
  });

  it("prints help and exits 0 with --help", async () => {
    const root = await tollgate(["--help"]);
    const validate = await tollgate(["validate", "--help"]);

    expect(root.code).toBe(0);
    expect(root.stdout).toContain("Usage: tollgate [options] [command]");
    expect(root.stdout).toContain("Exit codes:");
    expect(validate.code).toBe(0);
    expect(validate.stdout).toContain("Usage: tollgate validate [options] [inputs...]");
  });

  it("help texts agree with the commands they name", async () => {
    // Prepare
    const scripts = (
      JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as { scripts: Record<string, string> }
    ).scripts;
    const root = (await tollgate(["--help"])).stdout;
    const validate = (await tollgate(["validate", "--help"])).stdout;
    const audit = (await tollgate(["audit", "--help"])).stdout;
    // Assess: the exit codes of every command, audit's included.
    const exitCodes = root.slice(root.indexOf("Exit codes:"), root.indexOf("Examples:"));
    for (const command of ["validate", "lint", "audit", "bundle build"]) expect(exitCodes).toContain(command);
    expect(exitCodes).toContain("audit: no finding reaches --fail-on");
    expect(exitCodes).toContain("audit: a finding reaches --fail-on");
    // The "(npm start)" example is package.json's start script; validate's --demo is the README's second demo.
    const npmStart = audit.split("\n").find((l) => l.endsWith("(npm start)"));
    expect(npmStart?.replace(/\s+\(npm start\)$/, "").trim()).toBe(
      scripts.start?.replace(/^node audit\/cli\/bin\.js /, "tollgate "),
    );
    expect(validate).not.toContain("(npm start)");
    expect(validate).toContain(
      "tollgate validate --bundle examples/policies --demo examples/objects   (the README's second demo)",
    );
  });
});

describe("tollgate lint", () => {
  it("reports a broken CRD and exits 1, still listing the kinds that compiled", async () => {
    const result = await tollgate(["lint", "--bundle", BROKEN]);

    const lines = outputLines(result.stdout);
    expect(lines.some((l) => /^error \S*broken-crd\.yaml\S* .*: \S/.test(l))).toBe(true);
    expect(lines.some((l) => /^ {2}fixtures\.tollgate\.dev\/v1 Gadget \(crd, namespaced, \d+ rules?\)$/.test(l))).toBe(
      true,
    );
    expect(result.code).toBe(1);
  });

  it("prints the PolicyFailure array with -o json", async () => {
    const result = await tollgate(["lint", "--bundle", BROKEN, "-o", "json"]);

    const failures = JSON.parse(result.stdout) as {
      severity: string;
      family: string;
      file?: string;
      message: string;
    }[];
    expect(
      failures.some((f) => f.severity === "error" && f.family === "crd" && /broken-crd\.yaml$/.test(f.file ?? "")),
    ).toBe(true);
    expect(result.code).toBe(1);
  });

  it("prints the documents it ignored as notes, which are no failures (exit 0)", async () => {
    const bundle = join(scratch, "noted-bundle");
    mkdirSync(bundle);
    writeFileSync(join(bundle, "gadget-crd.yaml"), readFileSync(join(ROOT, GADGETS, "gadget-crd.yaml")));
    writeFileSync(join(bundle, "settings.yaml"), "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: settings\n");

    const result = await tollgate(["lint", "--bundle", bundle]);
    const json = await tollgate(["lint", "--bundle", bundle, "-o", "json"]);

    expect(outputLines(result.stdout).slice(0, 3)).toEqual([
      `note ${join(bundle, "settings.yaml")}#0: not a policy document (v1 ConfigMap "settings"): ignored`,
      "",
      `0 errors, 0 warnings (1 note) in ${bundle}`,
    ]);
    expect(result.code).toBe(0);
    expect(JSON.parse(json.stdout)).toEqual([]);
  });

  it("reports a PodSecurityConfiguration kube-apiserver would refuse, as its validation words it (exit 1)", async () => {
    const file = join(scratch, "pod-security-config.yaml");
    writeFileSync(
      file,
      [
        "apiVersion: pod-security.admission.config.k8s.io/v1",
        "kind: PodSecurityConfiguration",
        "defaults:",
        "  enforce: strict",
        "  warn-version: v1",
        "exemptions:",
        "  usernames: [alice, alice]",
        "",
      ].join("\n"),
    );
    const result = await tollgate(["lint", "--bundle", file]);

    expect(outputLines(result.stdout).slice(0, 3)).toEqual([
      `error ${file}#0 defaults.enforce: Invalid value: "strict": must be one of privileged, baseline, restricted`,
      `error ${file}#0 defaults.warn-version: Invalid value: "v1": must be "latest" or "v1.x"`,
      `error ${file}#0 exemptions.usernames[1]: Duplicate value: "alice"`,
    ]);
    expect(result.code).toBe(1);
  });

  it("reports a ValidatingAdmissionPolicy kube-apiserver would refuse, in its words, and a binding to no policy (exit 1)", async () => {
    const file = join(scratch, "admission-policy.yaml");
    writeFileSync(
      file,
      [
        "apiVersion: admissionregistration.k8s.io/v1",
        "kind: ValidatingAdmissionPolicy",
        "metadata:",
        "  name: broken",
        "spec:",
        "  matchConstraints:",
        "    resourceRules:",
        "      - {apiGroups: [apps], apiVersions: [v1], operations: [CREATE], resources: [deployments]}",
        "  validations:",
        '    - expression: "object.spec.replicas <= 5"',
        '    - expression: "object.spec.replicas <"',
        "---",
        "apiVersion: admissionregistration.k8s.io/v1",
        "kind: ValidatingAdmissionPolicyBinding",
        "metadata:",
        "  name: orphan",
        "spec:",
        "  policyName: nowhere",
        "  validationActions: [Deny]",
        "",
      ].join("\n"),
    );
    const result = await tollgate(["lint", "--bundle", file]);

    // kube-apiserver's create-time validation: the field path, the expression and cel-go's compile error.
    expect(outputLines(result.stdout).slice(0, 5)).toEqual([
      `warning ${file}#1 spec.policyName: binding "orphan" names no known ValidatingAdmissionPolicy ("nowhere"): it is ignored`,
      `error ${file}#0 spec.validations[1].expression: Invalid value: "object.spec.replicas <": compilation failed: ` +
        "ERROR: <input>:1:23: Syntax error: mismatched input '<EOF>' expecting {'[', '{', '(', '.', '-', '!', 'true', " +
        "'false', 'null', NUM_FLOAT, NUM_INT, NUM_UINT, STRING, BYTES, IDENTIFIER}",
      " | object.spec.replicas <",
      " | ......................^",
      "",
    ]);
    expect(result.code).toBe(1);
  });

  it("finds no errors in the bundled examples and exits 0", async () => {
    const result = await tollgate(["lint", "--bundle", "examples/policies"]);

    expect(result.stdout).toMatch(/^0 errors, \d+ warnings? in examples\/policies$/m);
    expect(result.stdout).toMatch(/^ {2}demo\.tollgate\.dev\/v1alpha1 Widget \(crd, namespaced, \d+ rules?\)$/m);
    expect(result.stdout).toMatch(/^ {2}demo\.tollgate\.dev\/v1alpha1 Tenant \(crd, cluster-scoped, \d+ rules?\)$/m);
    // examples/policies/waivers.yaml holds an expired waiver on purpose: a warning, not an error.
    expect(outputLines(result.stdout)).toContain(
      "warning examples/policies/waivers.yaml#1 spec.expires: Waiver debug-shell-privileged expired at 2026-01-31T00:00:00Z: it waives nothing (renew or remove it)",
    );
    expect(outputLines(result.stdout)).toContain("2 waivers read");
    expect(result.code).toBe(0);
  });

  it("checks --waivers beside the bundle: errors naming the field, selectors that can never match (exit 1)", async () => {
    // A bundle of two CRDs (kinds are checked only when no admission policy may match any resource).
    const bundle = join(scratch, "crd-bundle");
    mkdirSync(bundle);
    for (const name of ["widget-crd.yaml", "tenant-crd.yaml"]) {
      writeFileSync(join(bundle, name), readFileSync(join(ROOT, "examples/policies", name)));
    }
    const waivers = join(scratch, "team-waivers");
    mkdirSync(waivers);
    const file = join(waivers, "waivers.yaml");
    writeFileSync(
      file,
      [
        "apiVersion: tollgate.dev/v1alpha1",
        "kind: Waiver",
        "metadata: { name: typo }",
        "spec:",
        "  policy: widgets.demo.tollgate.dev",
        "  namespace: [shop]",
        "  reason: r",
        "  owner: o",
        '  expires: "next week"',
        "---",
        "apiVersion: tollgate.dev/v1alpha1",
        "kind: Waiver",
        "metadata: { name: no-such-kind }",
        "spec:",
        "  policy: widgets.demo.tollgate.dev",
        "  kinds: [Gadget]",
        "  reason: r",
        "  owner: o",
        '  expires: "2030-01-01T00:00:00Z"',
        "---",
        "apiVersion: tollgate.dev/v1alpha1",
        "kind: Waiver",
        "metadata: { name: tenant-in-namespace }",
        "spec:",
        "  policy: tenants.demo.tollgate.dev",
        "  kinds: [Tenant]",
        "  namespaces: [shop]",
        "  reason: r",
        "  owner: o",
        '  expires: "2030-01-01T00:00:00Z"',
        "",
      ].join("\n"),
    );

    const result = await tollgate(["lint", "--bundle", bundle, "--waivers", waivers]);

    const lines = outputLines(result.stdout);
    expect(lines).toEqual(
      expect.arrayContaining([
        `error ${file}#0: Waiver typo: spec.namespace: Forbidden: unknown field`,
        `error ${file}#0: Waiver typo: spec.expires: Invalid value: "next week": must be an RFC 3339 date-time (2026-12-31T00:00:00Z)`,
        `warning ${file}#1 spec.kinds: Waiver no-such-kind: kinds ["Gadget"] match no kind the bundle covers (Tenant, Widget): it can never match`,
        `warning ${file}#2 spec.namespaces: Waiver tenant-in-namespace: the kinds it selects are cluster-scoped and have no namespace: with namespaces it can never match`,
      ]),
    );
    expect(lines).toContain("2 waivers read");
    expect(result.code).toBe(1);
  });
});

describe("the bundled examples", () => {
  it.each(exampleCases)("$file exits $exit with the output its comment promises", async ({ file, exitCode, lines }) => {
    const result = await tollgate(["validate", "--bundle", "examples/policies", file]);

    const [actual, expected] = compare(outputLines(result.stdout), lines);
    expect(actual).toEqual(expected);
    expect(result.code).toBe(exitCode);
  });

  it("the validate demo runs over every example, shows each file's expected output and exits 0", async () => {
    // The README's second demo (npm start is the audit demo: test/e2e/audit-cli.test.ts).
    const result = await tollgate(["validate", "--bundle", "examples/policies", "--demo", "examples/objects"]);

    expect(result.code).toBe(0);
    const sections = new Map<string, string[]>();
    let current: string[] | undefined;
    for (const line of outputLines(result.stdout)) {
      const header = /^# (.+)$/.exec(line);
      if (header !== null) {
        current = [];
        sections.set(header[1]!, current);
      } else if (line === "" || line.startsWith("Summary: ")) current = undefined;
      else current?.push(line);
    }
    expect([...sections.keys()]).toEqual(exampleCases.map((c) => c.file));
    for (const { file, lines } of exampleCases) {
      const [actual, expected] = compare(sections.get(file) ?? [], lines);
      expect(actual, file).toEqual(expected);
    }
    expect(result.stdout).toMatch(/^Summary: \d+ objects in \d+ files: /m);
  });
});
