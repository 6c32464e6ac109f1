/**
 * The webhook Lambda (functions/validate.ts), issue "serverless admission webhook", Performance:
 *
 * - `webhook/hr-latency`: the in-process handler answering 10,000 API Gateway v2 events carrying an AdmissionReview
 *   of the valid HTTPRoute anchor (event normalisation, bounded decode, validate, AdmissionReview JSON), p50 and
 *   p99 per request, against JSON.parse + JSON.stringify of the same review text timed the same way in the same run.
 *   The logger formats each line (JSON) but writes it nowhere, so terminal I/O does not count.
 * - `webhook/offline-rps`: requests/s through `serverless offline` (npm run dev's infra/dev.ts, HTTP API route, the
 *   default example bundle, examples/admission/widget-allowed.json) with 50 concurrent clients for 5 s, counting
 *   every answer that is not the expected allowing AdmissionReview as an error; baseline: a plain node:http server
 *   in this process calling the same handler, same load. serverless offline, like Lambda, runs one handler instance
 *   per concurrent request (worker threads), so a first round of 50 concurrent requests warms the 50 instances
 *   (50 cold starts, not measured) — with the Gateway API bundle that round alone takes minutes on 2 cores.
 * - `webhook/cold-start-{yaml,artifact}`: a Lambda-style cold start: a fresh Node process loads the esbuild CommonJS bundle of the
 *   handler (as serverless.yml builds it) with TOLLGATE_BUNDLE = every Gateway API experimental CRD (the YAML folder, or
 *   the artifact `tollgate bundle build` makes of it), and answers one
 *   HTTPRoute review. Measured from process start (performance.timeOrigin) to the first answer, with the part spent
 *   loading and compiling the bundle (the runtime's `loadMs`), against bare Node start (`node -e 0`, start to exit).
 *   Goal (issue): first verdict within 100 ms over bare Node start.
 */
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createServer as createHttpServer } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { build } from "esbuild";
import type { FunctionLogger } from "../../functions/logger.js";
import { createRuntime } from "../../functions/runtime.js";
import { createHandler } from "../../functions/webhook.js";
import { buildBundleArtifact } from "../../lib/index.js";
import { REPO_ROOT } from "../conformance/corpus.js";
import { admissionReview, fakeContext, v2Event } from "../helpers/events.js";
import { startOffline } from "../helpers/offline.js";
import { ANCHOR_OBJECTS, findAnchorCase } from "./anchors.js";
import { type BenchCase, type BenchContext, type BenchRow, goal } from "./bench-case.js";
import { median } from "./measure.js";

const REQUESTS = 10_000;
const WARMUP = 1_000;
const COLD_STARTS = 5;

function percentile(sorted: readonly number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

/** Formats each line as powertools would (JSON), writes nothing. */
function formattingLogger(): FunctionLogger {
  let sink = 0;
  const line = (message: string, attributes: Record<string, unknown> = {}) => {
    sink += JSON.stringify({ level: "INFO", message, timestamp: new Date().toISOString(), ...attributes }).length;
  };
  return { info: line, warn: line, error: line, addContext: () => void sink };
}

function hrReviewText(ctx: BenchContext): { text: string; crdFolder: string } {
  const anchor = ANCHOR_OBJECTS.find((a) => a.id === "hr-valid")!;
  const c = findAnchorCase(ctx.corpusRoot, anchor);
  const text = JSON.stringify(
    admissionReview({
      uid: "705ab4f5-6393-11e8-b7cc-42010a800002",
      kind: { group: "gateway.networking.k8s.io", version: "v1", kind: "HTTPRoute" },
      operation: "CREATE",
      object: c.object,
      dryRun: false,
    }),
  );
  return { text, crdFolder: join(ctx.corpusRoot, "crds", "gateway-api", "experimental") };
}

async function latencyRow(ctx: BenchContext): Promise<BenchRow> {
  const { text, crdFolder } = hrReviewText(ctx);
  const runtime = createRuntime({ TOLLGATE_BUNDLE: crdFolder }, { logger: formattingLogger() });
  const set = await runtime.policySet();
  const handler = createHandler(runtime);
  const event = v2Event({ body: text });
  const context = fakeContext();

  const first = await handler(event, context);
  const answer = JSON.parse(first.body) as { response: { allowed: boolean } };
  if (first.statusCode !== 200 || answer.response.allowed !== true) {
    throw new Error(`the HTTPRoute review was not allowed: ${first.statusCode} ${first.body.slice(0, 300)}`);
  }

  const handlerUs: number[] = [];
  const baselineUs: number[] = [];
  let sink = 0;
  // Interleaved, so that a noisy neighbour slows both.
  for (let i = 0; i < WARMUP + REQUESTS; i++) {
    const t0 = performance.now();
    const res = await handler(event, context);
    const t1 = performance.now();
    sink += JSON.stringify(JSON.parse(text)).length;
    const t2 = performance.now();
    sink += res.body.length;
    if (i >= WARMUP) {
      handlerUs.push((t1 - t0) * 1000);
      baselineUs.push((t2 - t1) * 1000);
    }
  }
  if (sink === 0) throw new Error("unreachable");
  handlerUs.sort((a, b) => a - b);
  baselineUs.sort((a, b) => a - b);
  const p50 = percentile(handlerUs, 50);
  const p99 = percentile(handlerUs, 99);
  const b50 = percentile(baselineUs, 50);
  const b99 = percentile(baselineUs, 99);
  return {
    name: "webhook/hr-latency",
    unit: "µs",
    value: p50,
    min: handlerUs[0]!,
    max: handlerUs[handlerUs.length - 1]!,
    baseline: { label: "JSON.parse+stringify", value: b50 },
    notes: [
      `${REQUESTS} AdmissionReviews of ${text.length} bytes (HTTPRoute, ${set.kinds.length} Gateway API kinds in the bundle): ` +
        `p50 ${p50.toFixed(1)} µs, p99 ${p99.toFixed(1)} µs; JSON.parse+stringify p50 ${b50.toFixed(1)} µs, p99 ${b99.toFixed(1)} µs ` +
        `(p50 ratio ${(p50 / b50).toFixed(1)}×)`,
    ],
    data: { requests: REQUESTS, bytes: text.length, p50Us: p50, p99Us: p99, baselineP50Us: b50, baselineP99Us: b99 },
  };
}

/**
 * The child of a cold start: load the bundled handler, answer one review, print the timings as JSON. CPU times are
 * the process's own (user + system, ms) at each point. After the answers, the bundle file is read and parsed again
 * (what the load's first step does: the artifact is one JSON file), to split the load into reading and compiling.
 */
const CHILD = `
const cpu = () => { const u = process.cpuUsage(); return (u.user + u.system) / 1000; };
const t0 = performance.now();
const { handler } = require(process.env.BENCH_HANDLER);
const t1 = performance.now();
const body = require("node:fs").readFileSync(process.env.BENCH_REVIEW, "utf8");
const event = { version: "2.0", rawPath: "/validate", headers: { "content-type": "application/json" },
  requestContext: { http: { method: "POST", path: "/validate" }, stage: "$default" }, body, isBase64Encoded: false };
handler(event).then(async (res) => {
  const t2 = performance.now();
  const cpuAnswered = cpu();
  const allowed = JSON.parse(res.body).response.allowed;
  // A second answer: the verdict alone, with everything compiled.
  await handler(event);
  const t3 = performance.now();
  const r0 = performance.now();
  if (process.env.BENCH_ARTIFACT === "1") JSON.parse(require("node:fs").readFileSync(process.env.TOLLGATE_BUNDLE, "utf8"));
  const readMs = process.env.BENCH_ARTIFACT === "1" ? performance.now() - r0 : 0;
  process.stderr.write(JSON.stringify({ scriptStart: t0, imported: t1, answered: t2, again: t3 - t2, cpuAnswered, readMs, status: res.statusCode, allowed }) + "\\n");
});
`;

/** Bare Node printing the CPU time it has used when its first line of user code runs (ms). */
const BARE_CPU = "const u = process.cpuUsage(); process.stdout.write(String((u.user + u.system) / 1000))";

async function coldStartRow(ctx: BenchContext, source: "yaml" | "artifact"): Promise<BenchRow> {
  const { text, crdFolder } = hrReviewText(ctx);
  const dir = mkdtempSync(join(tmpdir(), "tollgate-cold-"));
  try {
    // `tollgate bundle build`'s artifact: the CRDs pre-parsed into JSON.
    let bundle = crdFolder;
    if (source === "artifact") {
      bundle = join(dir, "gateway-api.bundle.json");
      writeFileSync(bundle, (await buildBundleArtifact(crdFolder)).text);
    }
    // The same build as serverless.yml's custom.esbuild (the AWS SDK comes from the runtime; here from node_modules).
    await build({
      entryPoints: [join(REPO_ROOT, "functions", "validate.ts")],
      outfile: join(dir, "functions", "validate.cjs"),
      bundle: true,
      platform: "node",
      target: "node20",
      format: "cjs",
      banner: { js: 'const __tollgateImportMetaUrl = require("node:url").pathToFileURL(__filename).href;' },
      define: { "import.meta.url": "__tollgateImportMetaUrl" },
      external: ["@aws-sdk/*"],
      logLevel: "error",
    });
    const reviewFile = join(dir, "review.json");
    writeFileSync(reviewFile, text);

    const bare: number[] = [];
    const bareCpu: number[] = [];
    const firstAnswer: number[] = [];
    const answerCpu: number[] = [];
    const loadMs: number[] = [];
    const readMs: number[] = [];
    const importMs: number[] = [];
    const compileMs: number[] = [];
    const scriptStart: number[] = [];
    const verdictMs: number[] = [];
    const wall: number[] = [];
    for (let i = 0; i < COLD_STARTS; i++) {
      // Bare Node: spawn to exit, and the CPU time it has used when its first line of user code runs.
      const b0 = performance.now();
      const b = spawnSync(process.execPath, ["-e", BARE_CPU], { encoding: "utf8" });
      bare.push(performance.now() - b0);
      bareCpu.push(Number(b.stdout));

      const w0 = performance.now();
      const run = spawnSync(process.execPath, ["-e", CHILD], {
        encoding: "utf8",
        env: {
          PATH: process.env.PATH,
          BENCH_HANDLER: join(dir, "functions", "validate.cjs"),
          BENCH_REVIEW: reviewFile,
          BENCH_ARTIFACT: source === "artifact" ? "1" : "0",
          TOLLGATE_BUNDLE: bundle,
          POWERTOOLS_LOG_LEVEL: "INFO",
        },
      });
      wall.push(performance.now() - w0);
      const timings = JSON.parse(run.stderr.trim().split("\n").pop() ?? "{}") as {
        imported: number;
        scriptStart: number;
        answered: number;
        again: number;
        cpuAnswered: number;
        readMs: number;
        allowed: boolean;
      };
      if (run.status !== 0 || timings.allowed !== true) {
        throw new Error(`cold start failed (exit ${run.status}):\n${run.stdout}\n${run.stderr}`);
      }
      const loaded = run.stdout
        .split("\n")
        .filter((l) => l.includes('"bundle loaded"'))
        .map((l) => (JSON.parse(l) as { loadMs: number }).loadMs)[0];
      if (loaded === undefined) throw new Error(`the handler did not log "bundle loaded":\n${run.stdout}`);
      firstAnswer.push(timings.answered);
      answerCpu.push(timings.cpuAnswered);
      importMs.push(timings.imported - timings.scriptStart);
      scriptStart.push(timings.scriptStart);
      loadMs.push(loaded);
      readMs.push(timings.readMs);
      // The first answer after the load: the kind's lazy compile plus a verdict; a warm verdict is the verdict alone.
      compileMs.push(timings.answered - timings.imported - loaded - timings.again);
      verdictMs.push(timings.again);
    }
    const answer = median(firstAnswer);
    const bareMs = median(bare);
    const cpuOver = median(answerCpu) - median(bareCpu);
    const what = source === "yaml" ? "the Gateway API CRDs (YAML folder)" : "the Gateway API bundle artifact (JSON)";
    const load = median(loadMs);
    const read = median(readMs);
    const loadParts =
      source === "artifact"
        ? `loading ${what} ${load.toFixed(1)} ms (reading and parsing the file ${read.toFixed(1)} ms, measured again ` +
          `after the answers; compiling at load the rest, ${(load - read).toFixed(1)} ms)`
        : `reading, decoding and compiling ${what} ${load.toFixed(1)} ms`;
    return {
      name: `webhook/cold-start-${source}`,
      unit: "ms",
      value: answer,
      cpu: median(answerCpu),
      min: Math.min(...firstAnswer),
      max: Math.max(...firstAnswer),
      baseline: { label: "node -e 0", value: bareMs },
      notes: [
        `process start → first answer ${answer.toFixed(1)} ms (median of ${COLD_STARTS}), CPU time ${median(answerCpu).toFixed(1)} ms; ` +
          `its parts: Node's own start ${median(scriptStart).toFixed(1)} ms, importing the bundled handler ` +
          `${median(importMs).toFixed(1)} ms, ${loadParts}, the first compile of the HTTPRoute version on first use ` +
          `${median(compileMs).toFixed(1)} ms (first answer less a warm one), the verdict ${median(verdictMs).toFixed(2)} ms ` +
          `(a warm answer); spawn → exit ${median(wall).toFixed(1)} ms; bare Node start → exit ${bareMs.toFixed(1)} ms, ` +
          `CPU time at its first line ${median(bareCpu).toFixed(1)} ms`,
      ],
      goals: [goal("first answer over bare Node start", answer - bareMs, "<=", 100, "ms", cpuOver)],
      data: {
        firstAnswerMs: answer,
        importMs: median(importMs),
        loadMs: load,
        artifactReadMs: read,
        firstAnswerCpuMs: median(answerCpu),
        bareNodeCpuMs: median(bareCpu),
        firstCompileMs: median(compileMs),
        verdictMs: median(verdictMs),
        wallMs: median(wall),
        bareNodeMs: bareMs,
        overBareMs: answer - bareMs,
      },
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const CLIENTS = 50;
const LOAD_SECONDS = 5;

/** `CLIENTS` concurrent clients posting the review for `LOAD_SECONDS`: answers per second and errors. */
async function load(url: string, text: string): Promise<{ rps: number; ok: number; errors: number }> {
  const end = performance.now() + LOAD_SECONDS * 1000;
  let ok = 0;
  let errors = 0;
  const t0 = performance.now();
  await Promise.all(
    Array.from({ length: CLIENTS }, async () => {
      while (performance.now() < end) {
        try {
          const res = await fetch(url, { method: "POST", headers: { "content-type": "application/json" }, body: text });
          const body = (await res.json()) as { response?: { allowed?: boolean } };
          if (res.status === 200 && body.response?.allowed === true) ok++;
          else errors++;
        } catch {
          errors++;
        }
      }
    }),
  );
  return { rps: ok / ((performance.now() - t0) / 1000), ok, errors };
}

/** One round of `CLIENTS` concurrent requests, repeated until all answer (serverless offline's warm-up). */
async function warm(url: string, text: string): Promise<void> {
  for (let round = 0; round < 5; round++) {
    const answers = await Promise.all(
      Array.from({ length: CLIENTS }, () =>
        fetch(url, { method: "POST", headers: { "content-type": "application/json" }, body: text }).then(
          async (r) => r.status === 200 && (await r.text()).includes('"allowed":true'),
          () => false,
        ),
      ),
    );
    if (answers.every(Boolean)) return;
  }
}

async function offlineRow(_ctx: BenchContext): Promise<BenchRow> {
  const text = readFileSync(join(REPO_ROOT, "examples", "admission", "widget-allowed.json"), "utf8");

  // Baseline: node:http in this process, the same handler.
  const runtime = createRuntime({}, { logger: formattingLogger() });
  await runtime.policySet();
  const handler = createHandler(runtime);
  const server = createHttpServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      void handler(v2Event({ body: Buffer.concat(chunks).toString("utf8") })).then((r) => {
        res.writeHead(r.statusCode, r.headers);
        res.end(r.body);
      });
    });
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const address = server.address();
  const plainPort = typeof address === "object" && address !== null ? address.port : 0;
  await warm(`http://127.0.0.1:${plainPort}/validate`, text);
  const plain = await load(`http://127.0.0.1:${plainPort}/validate`, text);
  await new Promise((r) => server.close(r));

  // --noTimeout: the warm-up round (50 cold starts sharing the cores) may outlast the function timeout.
  const offlineServer = await startOffline({ label: "bench", args: ["--noTimeout"] });
  try {
    const base = offlineServer.base;
    const w0 = performance.now();
    await warm(`${base}/validate`, text);
    const warmMs = performance.now() - w0;
    const offline = await load(`${base}/validate`, text);
    return {
      name: "webhook/offline-rps",
      unit: "ms",
      value: 1000 / offline.rps,
      min: 1000 / offline.rps,
      max: 1000 / offline.rps,
      baseline: { label: "node:http, same handler", value: 1000 / plain.rps },
      notes: [
        `serverless offline, ${CLIENTS} concurrent clients for ${LOAD_SECONDS} s: ${offline.rps.toFixed(0)} requests/s, ` +
          `${offline.errors} errors (${offline.ok} answered); node:http calling the same handler: ${plain.rps.toFixed(0)} ` +
          `requests/s, ${plain.errors} errors; offline ready ${(offlineServer.readyMs / 1000).toFixed(1)} s after spawn, ${CLIENTS} instances warm ` +
          `after ${(warmMs / 1000).toFixed(1)} s more (table: ms per request = 1/throughput)`,
      ],
      data: {
        offlineRps: offline.rps,
        offlineErrors: offline.errors,
        plainRps: plain.rps,
        plainErrors: plain.errors,
        readyMs: offlineServer.readyMs,
        warmMs,
        clients: CLIENTS,
      },
    };
  } finally {
    await offlineServer.stop();
  }
}

export const webhookCases: BenchCase[] = [
  { name: "webhook/hr-latency", run: latencyRow },
  { name: "webhook/offline-rps", run: offlineRow },
  { name: "webhook/cold-start-yaml", run: (ctx) => coldStartRow(ctx, "yaml") },
  { name: "webhook/cold-start-artifact", run: (ctx) => coldStartRow(ctx, "artifact") },
];
