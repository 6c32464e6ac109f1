/**
 * `npm run dev`: the webhook on 127.0.0.1 with `serverless offline` (osls + serverless-offline + serverless-esbuild,
 * see serverless.yml), next to a local S3-compatible server (s3rver, in this process) holding the reports bucket.
 *
 *   npm run dev                                 http://127.0.0.1:3000 (REST API: /local/validate, HTTP API: /validate)
 *   TOLLGATE_DEV_HTTP_PORT=0 npm run dev        any free ports (printed), as the end-to-end test runs it
 *   npm run dev -- --noTimeout                  further arguments go to `osls offline start`
 *
 * Environment: TOLLGATE_DEV_HTTP_PORT (3000), TOLLGATE_DEV_LAMBDA_PORT (3002), TOLLGATE_DEV_S3_PORT (4569); 0 picks
 * a free port. Every TOLLGATE_* variable is passed on to the function (see serverless.yml). Nothing is downloaded:
 * telemetry and update checks are off, and the AWS credentials are s3rver's dummy ones.
 *
 * s3rver quirks (../shared/research/toolchain.md §2): listing pagination needs Node's legacy OpenSSL provider, so
 * this process and the offline child run with --openssl-legacy-provider; S3 clients must use path-style requests
 * and `WHEN_REQUIRED` checksums against it (lib/storage does, given TOLLGATE_S3_ENDPOINT).
 *
 * Before anything starts, the settings are checked as the functions' cold starts check them (a wrong TOLLGATE_*
 * value would otherwise reach the client as serverless offline's 200 answer with the error, its stack trace and
 * file paths) and the fixed ports are probed (a busy port would otherwise end in esbuild's goroutine dump): either
 * problem is one line naming the variable, and exit code 2.
 */
import { spawn } from "node:child_process";
import { existsSync, mkdirSync } from "node:fs";
import { createRequire } from "node:module";
import { createServer, type Server } from "node:net";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import S3rver from "s3rver";
import { resolveEnvConfig } from "../functions/runtime.js";
import { ConfigError } from "../lib/index.js";

const ROOT = fileURLToPath(new URL("..", import.meta.url));
const HOST = "127.0.0.1";
const STAGE = "local";
/** The reports bucket the auditor writes to (serverless.yml names it `${service}-reports-${stage}`). */
export const REPORTS_BUCKET = `tollgate-reports-${STAGE}`;

/** A setting that stops `npm run dev` before it starts anything: its message is all the user sees. */
class DevSetupError extends Error {}

function portFrom(name: string, fallback: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw === "") return fallback;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 0 || n > 65535) {
    throw new DevSetupError(`${name}=${JSON.stringify(raw)} is not a port (0 to 65535; 0 picks a free one)`);
  }
  return n;
}

/**
 * The webhook's own configuration check (its cold start, functions/runtime.ts), run here first, and a local bundle
 * that does not exist. (The scheduled auditor resolves its settings with each invocation and answers a bad one as
 * the Lambda error it is.)
 */
function checkFunctionSettings(): void {
  try {
    const webhook = resolveEnvConfig(process.env);
    if (!webhook.bundle.startsWith("s3://") && !existsSync(webhook.bundle)) {
      throw new DevSetupError(`TOLLGATE_BUNDLE: ${webhook.bundle} does not exist`);
    }
  } catch (err) {
    if (err instanceof ConfigError) throw new DevSetupError(err.message);
    throw err;
  }
}

/** Fails when something listens on a fixed port already (0, any free port, is never busy). */
async function checkPortFree(port: number, name: string): Promise<void> {
  if (port === 0) return;
  const server = createServer();
  try {
    await new Promise<void>((resolve, reject) => {
      server.once("error", reject);
      server.listen(port, HOST, () => resolve());
    });
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    const why = code === "EADDRINUSE" ? "is in use" : `cannot be listened on (${code ?? String(err)})`;
    throw new DevSetupError(
      `${HOST}:${port} ${why}: stop what listens there, or set ${name} to another port (0 picks a free one)`,
    );
  } finally {
    await new Promise((r) => server.close(r));
  }
}

/**
 * `count` distinct free TCP ports on 127.0.0.1, none of them in `taken`: every probe socket stays bound until all are
 * chosen, so the kernel cannot hand the same port out twice (as it may when each is probed and released in turn).
 */
async function freePorts(count: number, taken: ReadonlySet<number>): Promise<number[]> {
  const servers: Server[] = [];
  const ports: number[] = [];
  try {
    while (ports.length < count) {
      const server = createServer();
      await new Promise<void>((resolve, reject) => {
        server.once("error", reject);
        server.listen(0, HOST, () => resolve());
      });
      servers.push(server);
      const address = server.address();
      const port = typeof address === "object" && address !== null ? address.port : 0;
      if (!taken.has(port)) ports.push(port);
    }
  } finally {
    await Promise.all(servers.map((s) => new Promise((r) => s.close(r))));
  }
  return ports;
}

function oslsBin(): string {
  const require = createRequire(import.meta.url);
  return join(dirname(require.resolve("osls/package.json")), "bin", "serverless.js");
}

async function main(): Promise<void> {
  checkFunctionSettings();
  const s3Port = portFrom("TOLLGATE_DEV_S3_PORT", 4569);
  let httpPort = portFrom("TOLLGATE_DEV_HTTP_PORT", 3000);
  let lambdaPort = portFrom("TOLLGATE_DEV_LAMBDA_PORT", 3002);
  await checkPortFree(s3Port, "TOLLGATE_DEV_S3_PORT");
  await checkPortFree(httpPort, "TOLLGATE_DEV_HTTP_PORT");
  await checkPortFree(lambdaPort, "TOLLGATE_DEV_LAMBDA_PORT");
  const directory = join(ROOT, ".s3-local");
  mkdirSync(directory, { recursive: true });
  const s3 = new S3rver({
    address: HOST,
    port: s3Port,
    directory,
    silent: true,
    configureBuckets: [{ name: REPORTS_BUCKET, configs: [] }],
  });
  const s3Address = await s3.run();
  const s3Endpoint = `http://${HOST}:${s3Address.port}`;
  // Free ports are chosen once s3rver holds its own, all at once, so the three never collide.
  const free = await freePorts(
    [httpPort, lambdaPort].filter((p) => p === 0).length,
    new Set([s3Address.port, httpPort, lambdaPort]),
  );
  if (httpPort === 0) httpPort = free.shift() as number;
  if (lambdaPort === 0) lambdaPort = free.shift() as number;
  console.log(
    `tollgate dev: s3rver on ${s3Endpoint} (bucket ${REPORTS_BUCKET}, files in .s3-local/, keys S3RVER/S3RVER): ` +
      `AWS_ACCESS_KEY_ID=S3RVER AWS_SECRET_ACCESS_KEY=S3RVER npx tollgate audit --s3-endpoint ${s3Endpoint} ` +
      `--out s3://${REPORTS_BUCKET}/<prefix> ...`,
  );

  const child = spawn(
    process.execPath,
    [
      "--openssl-legacy-provider",
      oslsBin(),
      "offline",
      "start",
      "--stage",
      STAGE,
      "--host",
      HOST,
      "--httpPort",
      String(httpPort),
      "--lambdaPort",
      String(lambdaPort),
      ...process.argv.slice(2),
    ],
    {
      cwd: ROOT,
      stdio: "inherit",
      env: {
        ...process.env,
        SLS_TELEMETRY_DISABLED: "1",
        SLS_NOTIFICATIONS_MODE: "off",
        SLS_DEPRECATION_DISABLE: "*",
        AWS_ACCESS_KEY_ID: "S3RVER",
        AWS_SECRET_ACCESS_KEY: "S3RVER",
        AWS_REGION: process.env.AWS_REGION ?? "eu-west-1",
        TOLLGATE_S3_ENDPOINT: process.env.TOLLGATE_S3_ENDPOINT ?? s3Endpoint,
      },
    },
  );
  console.log(
    `tollgate dev: serverless offline starting on http://${HOST}:${httpPort} ` +
      `(HTTP API: /validate, /healthz; REST API: /${STAGE}/validate, /${STAGE}/healthz)`,
  );

  let stopping = false;
  const forward = (signal: NodeJS.Signals) => {
    stopping = true;
    if (child.exitCode === null && child.signalCode === null) child.kill(signal);
  };
  process.on("SIGINT", forward);
  process.on("SIGTERM", forward);
  process.on("SIGHUP", forward);

  const code = await new Promise<number>((resolve) => {
    child.on("exit", (exitCode, signal) => resolve(exitCode ?? (signal !== null && stopping ? 0 : 1)));
  });
  await s3.close();
  process.exit(code);
}

try {
  await main();
} catch (err) {
  if (!(err instanceof DevSetupError)) throw err;
  console.error(`tollgate dev: ${err.message}`);
  process.exit(2);
}
