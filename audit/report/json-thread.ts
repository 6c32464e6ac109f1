/**
 * report.json rendered on a thread of its own (thread.ts): the run's header and the files of its two spools come
 * in, the controller links its reads follow (audit/controllers.ts) too; the file's bytes go back. The same
 * reportJson as on the calling thread writes it.
 */
import { workerData } from "node:worker_threads";
import { ControllerChain } from "../controllers.js";
import type { Finding, ObjectRecord } from "../model.js";
import { readSpoolFile } from "../spool.js";
import { type JsonRun, reportJson } from "./json.js";
import { toParent } from "./thread.js";

/** What the thread is started with. */
export interface JsonThreadData {
  /** The run's members that report.json holds besides its objects and findings. */
  header: Omit<JsonRun, "objects" | "findings">;
  objects: string;
  findings: string;
  controllerLinks: [string, string][];
}

const data = workerData as JsonThreadData;
const chain = ControllerChain.fromLinks(data.controllerLinks);
const run: JsonRun = {
  ...data.header,
  objects: { [Symbol.iterator]: () => readSpoolFile<ObjectRecord>(data.objects, (r) => chain.resolved(r)) },
  findings: { [Symbol.iterator]: () => readSpoolFile<Finding>(data.findings, (f) => chain.resolved(f)) },
};
await toParent(reportJson(run));
