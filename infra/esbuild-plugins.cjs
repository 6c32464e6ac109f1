/**
 * esbuild plugins for serverless-esbuild (serverless.yml: custom.esbuild.plugins). CommonJS, because
 * serverless-esbuild loads this file with require().
 *
 * web-tree-sitter (the Go reader of lib/declarative) loads its WebAssembly runtime, `tree-sitter.wasm`, from the
 * folder of the script that runs it: in the bundle, the folder of functions/validate.cjs. This copies the file
 * there after each build; serverless-esbuild zips every file of its build folder outside node_modules. (The Go
 * grammar, tree-sitter-go.wasm, is found through node_modules and ships through package.patterns.)
 */
const { copyFileSync, mkdirSync } = require("node:fs");
const { dirname, join } = require("node:path");

const treeSitterWasm = {
  name: "tollgate-tree-sitter-wasm",
  setup(build) {
    build.onEnd((result) => {
      if (result.errors.length > 0) return;
      // A throw here would leave serverless-esbuild waiting for its esbuild service forever: report instead.
      try {
        copyNextToOutputs(build, result);
      } catch (error) {
        console.error(`tollgate-tree-sitter-wasm: ${error instanceof Error ? error.message : String(error)}`);
      }
    });
  },
};

function copyNextToOutputs(build, result) {
  const source = require.resolve("web-tree-sitter/tree-sitter.wasm");
  const outputs = build.initialOptions.outfile
    ? [build.initialOptions.outfile]
    : Object.keys(result.metafile?.outputs ?? {}).filter((f) => f.endsWith(".cjs") || f.endsWith(".js"));
  const folders = new Set(outputs.map((f) => dirname(f)));
  if (folders.size === 0 && build.initialOptions.outdir) folders.add(build.initialOptions.outdir);
  for (const folder of folders) {
    mkdirSync(folder, { recursive: true });
    copyFileSync(source, join(folder, "tree-sitter.wasm"));
  }
}

module.exports = [treeSitterWasm];
