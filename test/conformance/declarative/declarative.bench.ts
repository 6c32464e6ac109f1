/**
 * Benchmark cases of the declarative family (issue "Performance"): parse and compile all corpus Go packages (ms),
 * and validate a Widget and a Fleet object from the corpus (µs per object, next to the JSON.parse + JSON.stringify
 * round trip of the same object's text, measured in the same run). The cases follow test/bench's BenchCase shape,
 * so `npm run bench` can list them (add `declarativeCases` to ALL_CASES in test/bench/run.ts); run them alone
 * with `npx tsx test/conformance/declarative/declarative.bench.ts`.
 */
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { type BundleFile, loadBundle, parseDocuments } from "#lib";
import { resolveBundleConfig } from "../../../lib/bundle/config.js";
import { compileDeclarative } from "../../../lib/declarative/family.js";
import { loadGoParser, readGoFile } from "../../../lib/declarative/go-source.js";
import type { BenchCase, BenchContext, BenchRow } from "../../bench/bench-case.js";
import { median } from "../../bench/measure.js";
import { objectRow } from "../../bench/object-row.js";
import { resolveCorpusRoot } from "../corpus.js";
import { type DeclarativeCase, readDeclarativeCases } from "./case-check.js";

function corpusFiles(root: string, dir = root): BundleFile[] {
  const out: BundleFile[] = [];
  for (const name of readdirSync(dir).sort()) {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) out.push(...corpusFiles(root, p));
    else if (name.endsWith(".go") || name === "go.mod")
      out.push({ path: relative(root, p), content: readFileSync(p, "utf8") });
  }
  return out;
}

async function compileRow(ctx: BenchContext): Promise<BenchRow> {
  const files = corpusFiles(join(ctx.corpusRoot, "declarative", "types"));
  const config = resolveBundleConfig({});
  const parser = await loadGoParser();
  const goFiles = files.filter((f) => f.path.endsWith(".go"));
  const full: number[] = [];
  const parseOnly: number[] = [];
  for (let i = 0; i < 30; i++) {
    const t0 = performance.now();
    for (const f of goFiles) readGoFile(parser, f.path, f.content);
    parseOnly.push(performance.now() - t0);
    const t1 = performance.now();
    await compileDeclarative(files, config);
    full.push(performance.now() - t1);
  }
  const bytes = goFiles.reduce((n, f) => n + f.content.length, 0);
  return {
    name: "declarative/compile-corpus",
    unit: "ms",
    value: median(full),
    min: Math.min(...full),
    max: Math.max(...full),
    baseline: { label: "tree-sitter parse alone", value: median(parseOnly) },
    notes: [
      `${goFiles.length} Go files (${bytes} bytes), 9 packages, 8 kinds: parse, resolve, compile (median of 30 runs)`,
    ],
    data: { files: goFiles.length, bytes },
  };
}

function caseObject(cases: DeclarativeCase[], name: string): DeclarativeCase {
  const c = cases.find((x) => x.name === name);
  if (c === undefined) throw new Error(`declarative corpus: no case ${name}`);
  return c;
}

async function validateRow(ctx: BenchContext, name: string, caseName: string): Promise<BenchRow> {
  const c = caseObject(readDeclarativeCases(ctx.corpusRoot), caseName);
  const set = await loadBundle(join(ctx.corpusRoot, "declarative", "types"));
  const text = JSON.stringify(c.object);
  // The old object as the webhook would get it: decoded from its JSON text, once.
  const old = c.oldObject === undefined ? undefined : parseDocuments(JSON.stringify(c.oldObject))[0]!.object;
  const req = (object: Record<string, unknown>) =>
    old === undefined ? { operation: c.operation, object } : { operation: c.operation, object, oldObject: old };
  const check = set.validate(req(c.object));
  const describe = `${c.kind} ${c.operation} (${caseName}), ${text.length} bytes: ${check.allowed ? "allowed" : `${check.errors.length} error(s)`}`;
  return objectRow(name, text, (object) => set.validate(req(object)), describe);
}

export const declarativeCases: readonly BenchCase[] = [
  { name: "declarative/compile-corpus", run: compileRow },
  {
    name: "declarative/validate/widget",
    run: (ctx) => validateRow(ctx, "declarative/validate/widget", "widget-valid-full"),
  },
  {
    name: "declarative/validate/fleet",
    run: (ctx) => validateRow(ctx, "declarative/validate/fleet", "listmap-multi-key-duplicate"),
  },
  {
    name: "declarative/validate/fleet-update",
    run: (ctx) => validateRow(ctx, "declarative/validate/fleet-update", "listmap-ratchet-by-key"),
  },
];

if (process.argv[1] !== undefined && fileURLToPath(import.meta.url) === process.argv[1]) {
  const ctx = { corpusRoot: resolveCorpusRoot() };
  for (const c of declarativeCases) {
    const r = await c.run(ctx);
    const ratio = (r.value / r.baseline.value).toFixed(1);
    console.log(
      `${r.name}: ${r.value.toFixed(2)} ${r.unit} (min ${r.min.toFixed(2)}, max ${r.max.toFixed(2)}); ` +
        `${r.baseline.label} ${r.baseline.value.toFixed(2)} ${r.unit}; ${ratio}× baseline`,
    );
    for (const n of r.notes) console.log(`  ${n}`);
  }
}
