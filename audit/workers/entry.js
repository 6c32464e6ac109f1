// Worker thread entry (plain JS so that Node loads it without tsx): registers tsx in this thread, then loads the
// TypeScript module the thread runs: the runner's worker, or the module its data names (a report thread,
// audit/report/thread.ts). Workers do not inherit the main thread's tsx registration made through register().
import { workerData } from "node:worker_threads";
import { register } from "tsx/esm/api";

register();
await import(workerData?.module ?? "./worker.ts");
