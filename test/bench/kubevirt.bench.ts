/**
 * Benchmark cases of the KubeVirt family: load the corpus' common templates (one bundle of every Template of
 * common-templates v0.35.0, amd64: claim, parse and lint each `validations` annotation; ms), and validate two
 * processed VirtualMachines of the corpus against their linked Template (µs per object, next to the
 * JSON.parse + JSON.stringify round trip of the same object's text, measured in the same run).
 */
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { type BundleFile, loadBundle, parseDocuments } from "#lib";
import { readKubevirtCases } from "../conformance/kubevirt/cases.js";
import type { BenchCase, BenchContext, BenchRow } from "./bench-case.js";
import { median } from "./measure.js";
import { objectRow } from "./object-row.js";

const TEMPLATES = "common-templates-v0.35.0/amd64";

function templateFiles(corpusRoot: string): BundleFile[] {
  const dir = join(corpusRoot, "kubevirt", "templates", TEMPLATES);
  return readdirSync(dir)
    .filter((n) => n.endsWith(".yaml"))
    .sort()
    .map((n) => ({ path: `${TEMPLATES}/${n}`, content: readFileSync(join(dir, n), "utf8") }));
}

async function loadRow(ctx: BenchContext): Promise<BenchRow> {
  const files = templateFiles(ctx.corpusRoot);
  const full: number[] = [];
  const parseOnly: number[] = [];
  let failures = 0;
  for (let i = 0; i < 30; i++) {
    const t0 = performance.now();
    for (const f of files) parseDocuments(f.content);
    parseOnly.push(performance.now() - t0);
    const t1 = performance.now();
    const set = await loadBundle(files);
    full.push(performance.now() - t1);
    failures = set.failures.length;
  }
  return {
    name: "kubevirt/load-templates",
    unit: "ms",
    value: median(full),
    min: Math.min(...full),
    max: Math.max(...full),
    baseline: { label: "YAML decode alone", value: median(parseOnly) },
    notes: [`${files.length} Templates of ${TEMPLATES}, ${failures} policy failure(s) (median of 30 loads)`],
    data: { files: files.length, failures },
  };
}

async function validateRow(ctx: BenchContext, name: string, caseName: string): Promise<BenchRow> {
  const c = readKubevirtCases(ctx.corpusRoot).find((x) => x.name === caseName);
  if (c === undefined || typeof c.template !== "string")
    throw new Error(`kubevirt corpus: no template case ${caseName}`);
  const content = readFileSync(join(ctx.corpusRoot, "kubevirt", "templates", c.template), "utf8");
  const set = await loadBundle([{ path: c.template, content }]);
  const text = JSON.stringify(c.vm);
  const check = set.validate({ operation: "CREATE", object: c.vm });
  const describe =
    `VirtualMachine (${caseName}), ${text.length} bytes: ${check.allowed ? "allowed" : `${check.errors.length} error(s)`}, ` +
    `${check.warnings.length} warning(s)`;
  return objectRow(name, text, (object) => set.validate({ operation: "CREATE", object }), describe);
}

export const kubevirtCases: readonly BenchCase[] = [
  { name: "kubevirt/load-templates", run: loadRow },
  {
    name: "kubevirt/validate/rhel9",
    run: (ctx) => validateRow(ctx, "kubevirt/validate/rhel9", "rhel9-server-small-as-processed"),
  },
  {
    name: "kubevirt/validate/windows2k22",
    run: (ctx) => validateRow(ctx, "kubevirt/validate/windows2k22", "windows2k22-as-processed-sata-root-warns"),
  },
];
