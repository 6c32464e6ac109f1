// `npm run build` (and npm's `prepare`, so `npm ci` leaves a built CLI): bundles the CLI and the audit worker with
// esbuild into dist/cli/, so `tollgate` starts without transpiling TypeScript. Dependencies stay in node_modules
// (not bundled); dynamic imports become separate chunks, so `--help` and usage errors load almost nothing.
// dist/cli/build.json lists the sources the build read: audit/cli/bin.js runs the build only while none of them is
// newer than it, and the sources through tsx otherwise (an edited checkout never runs stale code).
import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import { build } from "esbuild";

const outdir = "dist/cli";
rmSync(outdir, { recursive: true, force: true });
mkdirSync(outdir, { recursive: true });
const result = await build({
  entryPoints: { main: "audit/cli/main.ts", worker: "audit/workers/worker.ts" },
  outdir,
  bundle: true,
  splitting: true,
  format: "esm",
  platform: "node",
  target: "node20",
  packages: "external",
  outExtension: { ".js": ".mjs" },
  // The worker pool starts dist/cli/worker.mjs instead of the tsx entry (audit/workers/pool.ts).
  define: { __TOLLGATE_BUILD__: "true" },
  metafile: true,
  logLevel: "warning",
});
const inputs = Object.keys(result.metafile.inputs).filter((p) => !p.startsWith("node_modules/"));
inputs.push("package.json");
writeFileSync(`${outdir}/build.json`, `${JSON.stringify({ inputs: inputs.sort() }, null, 1)}\n`);
