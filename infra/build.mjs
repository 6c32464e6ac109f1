// `npm run build` (and npm's `prepare`, so `npm ci` leaves a built CLI): bundles the CLI, the audit worker and the
// report.json thread with esbuild into dist/cli/, so `tollgate` starts without transpiling TypeScript. The pure
// JavaScript dependencies are bundled too: Node resolving and loading them file by file (the yaml package alone is
// 72 CommonJS modules) took longer than running them. Packages that find files next to themselves (web-tree-sitter's
// WebAssembly runtime, the Go grammar) or are only loaded for S3 (the AWS SDK) stay in node_modules. Dynamic imports
// become separate chunks, so `--help` and usage errors load almost nothing.
// dist/cli/build.json lists the sources the build read: audit/cli/bin.js runs the build only while none of them is
// newer than it, and the sources through tsx otherwise (an edited checkout never runs stale code).
import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import { build } from "esbuild";

const outdir = "dist/cli";
rmSync(outdir, { recursive: true, force: true });
mkdirSync(outdir, { recursive: true });
const result = await build({
  entryPoints: {
    main: "audit/cli/main.ts",
    worker: "audit/workers/worker.ts",
    // report.json's thread (audit/report/thread.ts starts dist/cli/json-thread.mjs).
    "json-thread": "audit/report/json-thread.ts",
  },
  outdir,
  bundle: true,
  splitting: true,
  format: "esm",
  platform: "node",
  target: "node20",
  external: ["@aws-sdk/*", "@smithy/*", "@aws-lambda-powertools/*", "web-tree-sitter", "tree-sitter-go"],
  // Bundled CommonJS packages require Node's built-in modules; ESM output has no `require` of its own.
  banner: {
    js: "import { createRequire as __tollgateRequire } from 'node:module'; const require = __tollgateRequire(import.meta.url);",
  },
  outExtension: { ".js": ".mjs" },
  // The worker pool starts dist/cli/worker.mjs instead of the tsx entry (audit/workers/pool.ts).
  define: { __TOLLGATE_BUILD__: "true" },
  metafile: true,
  logLevel: "warning",
});
const inputs = Object.keys(result.metafile.inputs).filter((p) => !p.startsWith("node_modules/"));
inputs.push("package.json");
writeFileSync(`${outdir}/build.json`, `${JSON.stringify({ inputs: inputs.sort() }, null, 1)}\n`);
