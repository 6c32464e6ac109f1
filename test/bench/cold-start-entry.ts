/**
 * The child process of the cold-start benchmark (cold-start.bench.ts), bundled with esbuild and run with plain
 * `node`: load a bundle, validate one object, print timings as JSON. `performance.now()` counts from the start of
 * the process, so `firstVerdictAt` is process start to first verdict.
 *
 *   node .bench/cold-start.mjs <bundle> <object.json>
 */
import { readFileSync } from "node:fs";
import { loadBundle } from "../../lib/index.js";

const [bundle, objectFile] = process.argv.slice(2);
if (bundle === undefined || objectFile === undefined) throw new Error("usage: cold-start <bundle> <object.json>");
const cpuMs = () => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
};
const startedAt = performance.now();
const cpu0 = cpuMs();
const set = await loadBundle(bundle);
const loadedAt = performance.now();
const loadCpuMs = cpuMs() - cpu0;
const object: unknown = JSON.parse(readFileSync(objectFile, "utf8"));
const verdict = set.validate({ operation: "CREATE", object });
const firstVerdictAt = performance.now();
process.stdout.write(
  `${JSON.stringify({ startedAt, loadMs: loadedAt - startedAt, loadCpuMs, firstVerdictAt, firstVerdictCpuMs: cpuMs(), allowed: verdict.allowed, kinds: set.kinds.length })}\n`,
);
