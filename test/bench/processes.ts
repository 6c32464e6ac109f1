/**
 * What the process-start benchmarks share: timing fresh `node` processes from the parent (spawn to exit), bare
 * Node's start as their baseline, and an esbuild bundle of cold-start-entry.ts (plain Node, no tsx), which loads a
 * bundle and validates one object in a fresh process and prints its own timings.
 */
import { spawnSync } from "node:child_process";
import { mkdirSync, readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { build } from "esbuild";
import { builtEntry } from "../../audit/cli/built-entry.js";
import { REPO_ROOT } from "../conformance/corpus.js";

/** A child's environment without the parent's NODE_OPTIONS (tsx's loader must not be in the measured process). */
export function childEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  return { ...process.env, NODE_OPTIONS: "", ...extra };
}

/**
 * Wall time of `node <args>`, spawn to exit, in ms, and the child's CPU time (10 ms ticks: see
 * {@link childrenCpuMs}); throws when it exits non-zero (or with another status). */
export function timedNode(
  args: readonly string[],
  options: { env?: NodeJS.ProcessEnv; expectStatus?: number; cwd?: string } = {},
): { ms: number; cpuMs: number; stdout: string; stderr: string } {
  const c0 = childrenCpuMs();
  const t0 = performance.now();
  const r = spawnSync(process.execPath, args, {
    encoding: "utf8",
    env: options.env ?? childEnv(),
    cwd: options.cwd ?? REPO_ROOT,
    maxBuffer: 64 * 1024 * 1024,
  });
  const ms = performance.now() - t0;
  const cpuMs = childrenCpuMs() - c0;
  const want = options.expectStatus ?? 0;
  if (r.status !== want) {
    throw new Error(`node ${args.join(" ")} exited ${r.status} (want ${want}): ${r.stderr.slice(-2000)}`);
  }
  return { ms, cpuMs, stdout: r.stdout, stderr: r.stderr };
}

/**
 * Makes the build (dist/cli) when it is missing or older than a source: audit/cli/bin.js would otherwise run the
 * sources through tsx, which the process benchmarks must not measure.
 */
export function ensureBuilt(): void {
  const root = new URL(`file://${REPO_ROOT.endsWith("/") ? REPO_ROOT : `${REPO_ROOT}/`}`);
  if (builtEntry(root) !== undefined) return;
  timedNode(["infra/build.mjs"]);
  if (builtEntry(root) === undefined) throw new Error("npm run build did not leave a current dist/cli");
}

/**
 * Bare Node at its first line of user code: performance.now() there (process start → user code) and the CPU time
 * (user + system) it has used by then, ms.
 */
export function bareStart(): { at: number; cpuMs: number } {
  const code =
    "const u=process.cpuUsage();process.stdout.write(JSON.stringify({at:performance.now(),cpuMs:(u.user+u.system)/1000}))";
  return JSON.parse(timedNode(["-e", code]).stdout) as { at: number; cpuMs: number };
}

/** What cold-start-entry.ts prints. */
export interface ColdStartTimes {
  /** performance.now() when the entry's first line ran (process start → module loaded). */
  startedAt: number;
  loadMs: number;
  /** CPU time of the load (user + system), ms. */
  loadCpuMs: number;
  firstVerdictAt: number;
  /** CPU time the process has used at the first verdict, ms. */
  firstVerdictCpuMs: number;
  allowed: boolean;
  kinds: number;
}

let script: Promise<string> | undefined;

/**
 * The esbuild bundle of cold-start-entry.ts (built once per run), split as the CLI's build splits (infra/build.mjs):
 * what lib imports dynamically (the AWS SDK for s3:// bundles, web-tree-sitter for Go sources) goes into chunks a
 * start loads only when it uses them. (One file with everything inlined made every start parse the AWS SDK too:
 * 3.2 MB instead of 1.6.)
 */
export function coldStartScript(): Promise<string> {
  script ??= (async () => {
    const dir = join(REPO_ROOT, ".bench", "cold-start", "entry");
    rmSync(dir, { recursive: true, force: true });
    mkdirSync(dir, { recursive: true });
    await build({
      entryPoints: { "cold-start": join(REPO_ROOT, "test/bench/cold-start-entry.ts") },
      bundle: true,
      splitting: true,
      platform: "node",
      format: "esm",
      target: "node20",
      outdir: dir,
      outExtension: { ".js": ".mjs" },
      banner: { js: "import{createRequire as __cr}from'node:module';const require=__cr(import.meta.url);" },
      logLevel: "warning",
    });
    return join(dir, "cold-start.mjs");
  })();
  return script;
}

/** Runs cold-start-entry in a fresh process: load `bundle`, validate the object of `objectFile`. */
export async function coldStart(bundle: string, objectFile: string): Promise<ColdStartTimes> {
  const r = timedNode([await coldStartScript(), bundle, objectFile]);
  return JSON.parse(r.stdout) as ColdStartTimes;
}

/**
 * CPU time (user + system) of this process's waited-for children so far, ms: Linux's cutime + cstime of
 * /proc/self/stat, in clock ticks of 10 ms (so a figure per child is only good as a mean over several). NaN where
 * there is no /proc.
 */
export function childrenCpuMs(): number {
  try {
    const stat = readFileSync("/proc/self/stat", "utf8");
    // The fields after the command name (which may hold spaces) start at state, field 3; cutime is field 16.
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return (Number(fields[13]) + Number(fields[14])) * 10;
  } catch {
    return Number.NaN;
  }
}

/** CPU time (user + system) of this process, every thread, so far, ms. */
export function selfCpuMs(): number {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
}
