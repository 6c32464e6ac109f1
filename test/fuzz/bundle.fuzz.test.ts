/**
 * loadBundle under mutated CRDs (the fixtures' CRDs; with TOLLGATE_FUZZ=long also the shared corpus' CRDs when it is
 * there): it never throws, a bad policy is a PolicyFailure worded by tollgate (never a JavaScript error text), and
 * the PolicySet it returns validates an object without throwing.
 */
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { loadBundle, parseDocuments } from "../../lib/index.js";
import { resolveCorpusRoot } from "../conformance/corpus.js";
import { LONG, runs, SEED, timeout } from "./budget.js";

const FIXTURES = fileURLToPath(new URL("../fixtures/bundles/", import.meta.url));
const EXAMPLES = fileURLToPath(new URL("../../examples/policies/", import.meta.url));

function crdsIn(folder: string, limit: number): Record<string, unknown>[] {
  const out: Record<string, unknown>[] = [];
  const walk = (dir: string) => {
    for (const name of readdirSync(dir, { withFileTypes: true })) {
      if (out.length >= limit) return;
      const path = join(dir, name.name);
      if (name.isDirectory()) walk(path);
      else if (/\.ya?ml$/.test(name.name) && readFileSync(path).length < 200_000) {
        for (const d of parseDocuments(readFileSync(path, "utf8"))) {
          const o = d.object as Record<string, unknown> | undefined;
          if (o?.kind === "CustomResourceDefinition") out.push(o);
        }
      }
    }
  };
  walk(folder);
  return out;
}

function corpusCrds(): Record<string, unknown>[] {
  if (!LONG) return [];
  let root: string;
  try {
    root = join(resolveCorpusRoot(), "crds");
  } catch {
    return [];
  }
  return existsSync(root) ? crdsIn(root, 300) : [];
}

const BASES = [...crdsIn(FIXTURES, 50), ...crdsIn(EXAMPLES, 10), ...corpusCrds()];

/** JavaScript's own error texts: a failure worded like this is a crash turned into a message. */
const JS_ERROR =
  /Maximum call stack|TypeError|RangeError|Cannot read prop|is not a function|is not iterable|of undefined|\[object Object\]/;

const NUMBER_MARK = "\u0001num:";

const leaf = fc.oneof(
  fc.jsonValue({ maxDepth: 2 }),
  fc.constantFrom("9007199254740993", "-1e400", "18446744073709551616", "1.5").map((n) => `${NUMBER_MARK}${n}`),
  fc.constantFrom(
    "object",
    "array",
    "string",
    "integer",
    "self.x > 1",
    "self.size() == 0",
    "has(self.a) ? self.a : 0",
    "oldSelf == self",
    "self.all(x, x > 0)",
    "^[a-z]+(",
    "int-or-string",
    "date-time",
  ),
);

/** Every path to a value in the CRD, as keys. */
function paths(root: unknown, limit = 4000): (string | number)[][] {
  const out: (string | number)[][] = [];
  const stack: { v: unknown; p: (string | number)[] }[] = [{ v: root, p: [] }];
  while (stack.length > 0 && out.length < limit) {
    const { v, p } = stack.pop()!;
    out.push(p);
    if (Array.isArray(v)) for (let i = 0; i < v.length; i++) stack.push({ v: v[i], p: [...p, i] });
    else if (typeof v === "object" && v !== null)
      for (const [k, x] of Object.entries(v)) stack.push({ v: x, p: [...p, k] });
  }
  return out;
}

interface Edit {
  at: number;
  key: string;
  value: unknown;
  kind: "set" | "delete" | "add";
}

const edit: fc.Arbitrary<Edit> = fc.record({
  at: fc.nat(),
  key: fc.constantFrom(
    "type",
    "enum",
    "pattern",
    "x-kubernetes-validations",
    "default",
    "items",
    "properties",
    "maxLength",
    "format",
    "required",
    "nullable",
    "x-kubernetes-list-type",
    "x-kubernetes-list-map-keys",
    "rule",
    "messageExpression",
    "anyOf",
    "zz",
  ),
  value: leaf,
  kind: fc.constantFrom<"set" | "delete" | "add">("set", "delete", "add"),
});

function applyEdits(base: Record<string, unknown>, edits: Edit[]): string {
  const crd = JSON.parse(JSON.stringify(base)) as Record<string, unknown>;
  for (const e of edits) {
    const all = paths(crd);
    const p = all[e.at % all.length]!;
    let parent: unknown = crd;
    for (const k of p.slice(0, -1)) parent = (parent as Record<string | number, unknown>)[k];
    const last = p[p.length - 1];
    if (typeof parent !== "object" || parent === null) continue;
    const target = parent as Record<string | number, unknown>;
    if (last === undefined) continue;
    if (e.kind === "delete") delete target[last];
    else if (e.kind === "set") target[last] = e.value;
    else {
      const node = target[last];
      if (typeof node === "object" && node !== null && !Array.isArray(node))
        (node as Record<string, unknown>)[e.key] = e.value;
    }
  }
  return JSON.stringify(crd).replace(/"\\u0001num:([^"]*)"/g, "$1");
}

describe("loadBundle fuzz", () => {
  it(
    "never throws, words every failure itself, and validates without throwing",
    async () => {
      expect(BASES.length).toBeGreaterThan(0);
      await fc.assert(
        fc.asyncProperty(fc.nat(), fc.array(edit, { minLength: 1, maxLength: 5 }), async (which, edits) => {
          const base = BASES[which % BASES.length]!;
          const content = applyEdits(base, edits);
          const set = await loadBundle([{ path: "crd.json", content }]);
          for (const f of set.failures) expect(f.message).not.toMatch(JS_ERROR);
          for (const k of set.kinds) {
            const object = { apiVersion: `${k.group}/${k.version}`, kind: k.kind, metadata: { name: "x" }, spec: {} };
            const v = set.validate({ operation: "CREATE", object });
            for (const e of v.errors) expect(e.message).not.toMatch(/Maximum call stack|TypeError/);
          }
        }),
        { seed: SEED, numRuns: runs(100, 3_000) },
      );
    },
    timeout(120_000),
  );

  it("loads a CRD whose type is an integer beyond 2^53 as a failure, not a throw", async () => {
    const base = BASES.find((c) => (c.metadata as { name?: string } | undefined)?.name === "vaults.fuzz.tollgate.dev")!;
    const crd = JSON.stringify(base).replace('"spec":{"type":"object"', '"spec":{"type":"\\u0001num"');
    const content = crd.replace('"\\u0001num"', "9007199254740993");
    expect(content).toContain('"type":9007199254740993');
    const set = await loadBundle([{ path: "crd.json", content }]);
    const failure = set.failures.find((f) => f.message.includes("9007199254740993"));
    expect(failure?.message).toContain('Unsupported value: 9007199254740993: supported values: "array"');
  });
});
