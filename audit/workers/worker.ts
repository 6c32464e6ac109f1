/**
 * A worker thread of the runner (started through entry.js, which registers tsx): builds its own policy set once,
 * then decodes and audits the batches of raw parts it is sent, answering each with the parts' records and findings.
 * Ids, first-seen times and the summary stay on the main thread.
 */
import { parentPort, workerData } from "node:worker_threads";
import { compileWaivers } from "#lib";
import { type AuditDocumentContext, auditRawParts } from "../audit-document.js";
import { loadPolicySource } from "../policies.js";
import type { FromWorker, ToWorker, WorkerInit } from "./protocol.js";

const port = parentPort;
if (port === null) throw new Error("audit/workers/worker.ts runs in a worker thread only");
const init = workerData as WorkerInit;
const post = (m: FromWorker): void => port.postMessage(m);

let ctx: AuditDocumentContext | undefined;
let batches = 0;

async function start(): Promise<void> {
  const t0 = performance.now();
  const policySet = await loadPolicySource(init.policies);
  if (policySet.digest !== init.digest) {
    post({
      type: "init-error",
      message: `the worker's policy set (${policySet.digest}) is not the main thread's (${init.digest})`,
    });
    return;
  }
  ctx = { policySet, owner: { labels: init.ownerLabels }, startedAt: init.startedAt };
  if (init.user !== undefined) ctx.user = init.user;
  if (policySet.waivers.length > 0) ctx.waivers = compileWaivers(policySet.waivers, Date.parse(init.waiversAt));
  post({ type: "ready", digest: policySet.digest, loadMs: performance.now() - t0 });
}

const ready = start().catch((err: unknown) => {
  post({ type: "init-error", message: err instanceof Error ? err.message : String(err) });
});

port.on("message", (m: ToWorker) => {
  void ready.then(() => {
    if (ctx === undefined) return; // init failed and said so
    const n = batches++;
    if (init.fault !== undefined && init.fault.atBatch === n && init.fault.kind === "exit") process.exit(7);
    try {
      if (init.fault !== undefined && init.fault.atBatch === n) throw new Error("injected fault (test)");
      post({ type: "result", seq: m.seq, results: JSON.stringify(auditRawParts(m.parts, ctx)) });
    } catch (err) {
      post({
        type: "batch-error",
        seq: m.seq,
        message: err instanceof Error ? (err.stack ?? err.message) : String(err),
      });
    }
  });
});
