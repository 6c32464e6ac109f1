/**
 * `npm run dev` for tests and benchmarks: infra/dev.ts (s3rver off, `serverless offline` on free 127.0.0.1 ports)
 * spawned with a clean environment, waited for on /healthz, and stopped with SIGINT (SIGKILL after 10 s), its
 * esbuild output folder removed.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { rmSync } from "node:fs";
import { createServer } from "node:net";
import { join } from "node:path";
import { ROOT } from "./spawn.js";

interface HeldPort {
  port: number;
  release(): Promise<void>;
}

/** A TCP port on 127.0.0.1 kept bound until released, so that ports chosen together differ. */
function holdFreePort(): Promise<HeldPort> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      resolve({
        port: typeof address === "object" && address !== null ? address.port : 0,
        release: () => new Promise((r) => server.close(() => r())),
      });
    });
  });
}

/** A TCP port free on 127.0.0.1 at the time of the call. */
export async function freePort(): Promise<number> {
  const held = await holdFreePort();
  await held.release();
  return held.port;
}

export interface OfflineOptions {
  /** Names the esbuild output folder (`.esbuild-<label>-<pid>`), so concurrent runs in one checkout do not share it. */
  label: string;
  /** Serve the Lambda invoke API too (on a free port). */
  lambda?: boolean;
  /** More environment for infra/dev.ts and the functions (e.g. TOLLGATE_TOKEN). */
  env?: Record<string, string>;
  /** More arguments for `serverless offline` (e.g. --noTimeout). */
  args?: readonly string[];
}

export interface Offline {
  /** http://127.0.0.1:<port> of the HTTP and REST APIs. */
  base: string;
  /** http://127.0.0.1:<port> of the Lambda invoke API (only with `lambda`). */
  lambdaEndpoint: string | undefined;
  /** Milliseconds from spawn to the first 200 from /healthz. */
  readyMs: number;
  /** What the process printed so far (the last 64 KiB). */
  output(): string;
  stop(): Promise<void>;
}

const KEEP_OUTPUT = 64 * 1024;

/** Attempts when a chosen port is taken by someone else before serverless offline binds it (EADDRINUSE). */
const ATTEMPTS = 3;

export async function startOffline(options: OfflineOptions): Promise<Offline> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await startOnce(options);
    } catch (err) {
      if (!(err instanceof PortTaken) || attempt === ATTEMPTS) throw err;
    }
  }
}

class PortTaken extends Error {}

async function startOnce(options: OfflineOptions): Promise<Offline> {
  // Both ports are held until both are chosen, so they differ; infra/dev.ts picks s3rver's and avoids these.
  const held = [await holdFreePort(), ...(options.lambda === true ? [await holdFreePort()] : [])];
  await Promise.all(held.map((h) => h.release()));
  const httpPort = (held[0] as HeldPort).port;
  const lambdaPort = held[1]?.port ?? 0;
  const lambdaEndpoint = options.lambda === true ? `http://127.0.0.1:${lambdaPort}` : undefined;
  const esbuildDir = `.esbuild-${options.label}-${process.pid}`;
  const child: ChildProcess = spawn(
    process.execPath,
    ["--openssl-legacy-provider", "--import", "tsx", "infra/dev.ts", ...(options.args ?? [])],
    {
      cwd: ROOT,
      stdio: ["ignore", "pipe", "pipe"],
      env: {
        PATH: process.env.PATH,
        HOME: process.env.HOME,
        TOLLGATE_DEV_HTTP_PORT: String(httpPort),
        TOLLGATE_DEV_LAMBDA_PORT: String(lambdaPort),
        TOLLGATE_DEV_S3_PORT: "0",
        TOLLGATE_ESBUILD_DIR: esbuildDir,
        POWERTOOLS_LOG_LEVEL: "WARN",
        ...options.env,
      },
    },
  );
  let output = "";
  const collect = (d: Buffer) => {
    output = (output + d.toString()).slice(-KEEP_OUTPUT);
  };
  child.stdout?.on("data", collect);
  child.stderr?.on("data", collect);

  const stop = async (): Promise<void> => {
    if (child.exitCode === null && child.signalCode === null) {
      const exited = new Promise((r) => child.once("exit", r));
      child.kill("SIGINT");
      await Promise.race([exited, new Promise((r) => setTimeout(r, 10_000))]);
      if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
    }
    rmSync(join(ROOT, esbuildDir), { recursive: true, force: true });
  };

  const base = `http://127.0.0.1:${httpPort}`;
  const t0 = performance.now();
  try {
    for (;;) {
      if (child.exitCode !== null) {
        const message = `npm run dev exited ${child.exitCode}:\n${output}`;
        // infra/dev.ts's own probe says "<host>:<port> is in use"; a bind that loses a race later, EADDRINUSE.
        const taken = output.includes("EADDRINUSE") || / is in use: /.test(output);
        throw taken ? new PortTaken(message) : new Error(message);
      }
      const ready = await fetch(`${base}/healthz`).then(
        (r) => r.status === 200,
        () => false, // not listening yet
      );
      if (ready) break;
      if (performance.now() - t0 > 60_000) throw new Error(`serverless offline not ready after 60 s:\n${output}`);
      await new Promise((r) => setTimeout(r, 200));
    }
  } catch (err) {
    await stop();
    throw err;
  }
  return { base, lambdaEndpoint, readyMs: performance.now() - t0, output: () => output, stop };
}
