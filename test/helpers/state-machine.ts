/**
 * A small Amazon States Language interpreter for the tests of the sharded audit's state machine
 * (infra/audit-state-machine.yml): it runs a definition as AWS Step Functions runs it, for the part of the language
 * that definition uses (JSONPath), and refuses every field it does not implement, so a definition that grows a field
 * the tests would silently ignore fails them instead.
 *
 * - Task `arn:aws:states:::lambda:invoke`: Parameters (payload templates, `.$` paths into the state input and into the
 *   context `$$.Execution.*`), the function called through the given invoker, the result `{ Payload, StatusCode,
 *   ExecutedVersion }`, ResultSelector, ResultPath, OutputPath; a function error is the error named by its type.
 * - Retry: ErrorEquals (names, `States.ALL`, `States.TaskFailed`), IntervalSeconds, MaxAttempts, BackoffRate,
 *   MaxDelaySeconds, JitterStrategy; delays are recorded and slept scaled down (`timeScale`).
 * - Map in DISTRIBUTED mode: ItemReader `s3:getObject` of a JSON array; ItemBatcher (MaxItemsPerBatch(Path),
 *   MaxInputBytesPerBatch(Path), BatchInput): consecutive items, as many as fit both limits; one child execution of
 *   ItemProcessor per batch, input `{ BatchInput, Items }`, at most MaxConcurrency(Path) at once; a failed child (after
 *   its retries) counts against ToleratedFailurePercentage(Path): past it no child is started and the Map fails with
 *   `States.ExceedToleratedFailureThreshold`; ResultWriter `s3:putObject` writes `<Prefix>/<map run id>/manifest.json`
 *   and `SUCCEEDED_0.json` (and `FAILED_0.json`) and the Map's result is `{ MapRunArn, ResultWriterDetails }`.
 */
import { randomUUID } from "node:crypto";
import { join } from "node:path";
import { ROOT, runCommand } from "./spawn.js";

type Json = unknown;
type Obj = Record<string, Json>;

/** What a Lambda invocation gave: its payload, or the function error (name and message). */
export type InvokeResult = { payload: Json } | { error: string; cause: string };

export interface InterpreterOptions {
  /** Calls the function a Task's FunctionName refers to (as written in the definition) with the payload. */
  invoke(functionName: Json, payload: Json): Promise<InvokeResult>;
  /** Reads and writes objects for ItemReader and ResultWriter. */
  s3: {
    read(bucket: string, key: string): Promise<string>;
    write(bucket: string, key: string, body: string): Promise<void>;
  };
  /** Retry delays are slept at this scale (0.001: a second is a millisecond). Default 0: recorded, not slept. */
  timeScale?: number;
  /** The execution's start time. Default: now. */
  startTime?: string;
}

/** What happened, for the tests to check. */
export interface Trace {
  /** Every Task attempt: the state, and the error when it failed. */
  attempts: { state: string; error?: string }[];
  /** Every retry: the state, the error retried and the delay (seconds, before scaling). */
  retries: { state: string; error: string; delaySeconds: number }[];
  /** Every Map batch's Items, in order. */
  batches: Json[][];
}

/** A failed state or execution: Step Functions' error name and cause. */
export class StatesError extends Error {
  constructor(
    readonly error: string,
    readonly causeText: string,
  ) {
    super(`${error}: ${causeText}`);
    this.name = "StatesError";
  }
}

const TASK_FIELDS = new Set([
  "Type",
  "Comment",
  "QueryLanguage",
  "Resource",
  "Parameters",
  "ResultSelector",
  "ResultPath",
  "OutputPath",
  "Retry",
  "Next",
  "End",
]);
const MAP_FIELDS = new Set([
  "Type",
  "Comment",
  "QueryLanguage",
  "Label",
  "ItemReader",
  "ItemBatcher",
  "MaxConcurrency",
  "MaxConcurrencyPath",
  "ToleratedFailurePercentage",
  "ToleratedFailurePercentagePath",
  "ItemProcessor",
  "ResultWriter",
  "ResultPath",
  "Next",
  "End",
]);
const RETRY_FIELDS = new Set([
  "ErrorEquals",
  "IntervalSeconds",
  "MaxAttempts",
  "BackoffRate",
  "MaxDelaySeconds",
  "JitterStrategy",
]);

/** Runs the definition on the input; the execution's output, or a StatesError. */
export async function runExecution(
  definition: Json,
  input: Json,
  options: InterpreterOptions,
): Promise<{ output: Json; trace: Trace }> {
  const trace: Trace = { attempts: [], retries: [], batches: [] };
  const context = { Execution: { Input: input, StartTime: options.startTime ?? new Date().toISOString() } };
  const run = new Run(options, trace, context);
  const output = await run.machine(definition, input);
  return { output, trace };
}

class Run {
  constructor(
    private readonly options: InterpreterOptions,
    private readonly trace: Trace,
    private readonly context: Obj,
  ) {}

  async machine(definition: Json, input: Json): Promise<Json> {
    const d = record(definition, "definition");
    allowOnly(d, new Set(["Comment", "StartAt", "States", "QueryLanguage"]), "definition");
    if (d.QueryLanguage !== undefined && d.QueryLanguage !== "JSONPath") unsupported("QueryLanguage", "definition");
    const states = record(d.States, "States");
    let name = d.StartAt as string;
    let data = input;
    for (;;) {
      const state = record(states[name], `state ${name}`);
      if (state.QueryLanguage !== undefined && state.QueryLanguage !== "JSONPath") unsupported("QueryLanguage", name);
      if (state.Type === "Task") data = await this.task(name, state, data);
      else if (state.Type === "Map") data = await this.map(name, state, data);
      else unsupported(`Type ${String(state.Type)}`, name);
      if (state.End === true) return data;
      name = state.Next as string;
    }
  }

  private async task(name: string, state: Obj, input: Json): Promise<Json> {
    allowOnly(state, TASK_FIELDS, name);
    if (state.Resource !== "arn:aws:states:::lambda:invoke") unsupported(`Resource ${String(state.Resource)}`, name);
    const params = record(this.template(state.Parameters, input), `${name}.Parameters`);
    const result = await this.withRetry(name, state, async () => {
      const r = await this.options.invoke(params.FunctionName, params.Payload);
      if ("error" in r) throw new StatesError(r.error, r.cause);
      return { ExecutedVersion: "$LATEST", Payload: r.payload, StatusCode: 200 };
    });
    const selected = state.ResultSelector === undefined ? result : this.template(state.ResultSelector, result);
    return output(state, input, selected);
  }

  private async withRetry<T>(name: string, state: Obj, attempt: () => Promise<T>): Promise<T> {
    const retriers = ((state.Retry ?? []) as Obj[]).map((r) => {
      allowOnly(r, RETRY_FIELDS, `${name}.Retry`);
      return { r, used: 0 };
    });
    for (;;) {
      try {
        const value = await attempt();
        this.trace.attempts.push({ state: name });
        return value;
      } catch (err) {
        if (!(err instanceof StatesError)) throw err;
        this.trace.attempts.push({ state: name, error: err.error });
        const retrier = retriers.find(({ r }) => matches(r.ErrorEquals as string[], err.error));
        const max = (retrier?.r.MaxAttempts as number | undefined) ?? 3;
        if (retrier === undefined || retrier.used >= max) throw err;
        const r = retrier.r;
        let delay =
          ((r.IntervalSeconds as number | undefined) ?? 1) *
          ((r.BackoffRate as number | undefined) ?? 2) ** retrier.used;
        if (r.MaxDelaySeconds !== undefined) delay = Math.min(delay, r.MaxDelaySeconds as number);
        if (r.JitterStrategy === "FULL") delay = Math.random() * delay;
        else if (r.JitterStrategy !== undefined && r.JitterStrategy !== "NONE") unsupported("JitterStrategy", name);
        retrier.used++;
        this.trace.retries.push({ state: name, error: err.error, delaySeconds: delay });
        const scale = this.options.timeScale ?? 0;
        if (scale > 0) await new Promise((resolve) => setTimeout(resolve, delay * 1000 * scale));
      }
    }
  }

  private async map(name: string, state: Obj, input: Json): Promise<Json> {
    allowOnly(state, MAP_FIELDS, name);
    const processor = record(state.ItemProcessor, `${name}.ItemProcessor`);
    const config = record(processor.ProcessorConfig, `${name}.ProcessorConfig`);
    if (config.Mode !== "DISTRIBUTED") unsupported(`Mode ${String(config.Mode)}`, name);
    const { ProcessorConfig: _config, ...machine } = processor;
    const items = await this.readItems(name, state, input);
    const batches = this.batch(name, state, input, items);
    this.trace.batches.push(...batches.map((b) => (b as Obj).Items as Json[]));
    const concurrency = this.number(state, "MaxConcurrency", input) ?? 0;
    const tolerated = this.number(state, "ToleratedFailurePercentage", input) ?? 0;
    const results: { input: Json; output?: Json; error?: StatesError }[] = [];
    let next = 0;
    let failed = 0;
    const exceeded = () => (failed * 100) / Math.max(1, batches.length) > tolerated;
    const worker = async () => {
      while (next < batches.length && !exceeded()) {
        const i = next++;
        const child = batches[i];
        try {
          results[i] = { input: child, output: await this.machine(machine, child) };
        } catch (err) {
          if (!(err instanceof StatesError)) throw err;
          failed++;
          results[i] = { input: child, error: err };
        }
      }
    };
    const workers = concurrency === 0 ? batches.length : Math.min(concurrency, batches.length);
    await Promise.all(Array.from({ length: Math.max(1, workers) }, worker));
    const mapRunArn = `arn:aws:states:local:000000000000:mapRun:test/${state.Label ?? name}:${randomUUID()}`;
    const result =
      state.ResultWriter === undefined
        ? results.map((r) => r.output)
        : await this.writeResults(name, state, input, mapRunArn, results);
    if (exceeded()) {
      throw new StatesError(
        "States.ExceedToleratedFailureThreshold",
        `${failed} of ${batches.length} child executions failed (the first: ${results.find((r) => r?.error)?.error?.message})`,
      );
    }
    return output(state, input, result);
  }

  private async readItems(name: string, state: Obj, input: Json): Promise<Json[]> {
    const reader = record(state.ItemReader, `${name}.ItemReader`);
    allowOnly(reader, new Set(["Resource", "ReaderConfig", "Parameters"]), `${name}.ItemReader`);
    const readerConfig = record(reader.ReaderConfig, `${name}.ReaderConfig`);
    if (reader.Resource !== "arn:aws:states:::s3:getObject" || readerConfig.InputType !== "JSON") {
      unsupported("ItemReader other than a JSON object in S3", name);
    }
    allowOnly(readerConfig, new Set(["InputType"]), `${name}.ReaderConfig`);
    const where = record(this.template(reader.Parameters, input), `${name}.ItemReader.Parameters`);
    const items = JSON.parse(await this.options.s3.read(where.Bucket as string, where.Key as string)) as Json;
    if (!Array.isArray(items)) throw new StatesError("States.ItemReaderFailed", "the JSON object is not an array");
    return items;
  }

  private batch(name: string, state: Obj, input: Json, items: Json[]): Json[] {
    const b = record(state.ItemBatcher, `${name}.ItemBatcher`);
    allowOnly(
      b,
      new Set([
        "MaxItemsPerBatch",
        "MaxItemsPerBatchPath",
        "MaxInputBytesPerBatch",
        "MaxInputBytesPerBatchPath",
        "BatchInput",
      ]),
      `${name}.ItemBatcher`,
    );
    const maxItems = this.number(b, "MaxItemsPerBatch", input) ?? Number.POSITIVE_INFINITY;
    const maxBytes = this.number(b, "MaxInputBytesPerBatch", input) ?? 256 * 1024;
    const batchInput = b.BatchInput === undefined ? undefined : this.template(b.BatchInput, input);
    const bytes = (batch: Json[]) => Buffer.byteLength(JSON.stringify(batch));
    const batches: Json[][] = [];
    let current: Json[] = [];
    for (const item of items) {
      if (bytes([item]) > maxBytes) {
        throw new StatesError("States.ItemReaderFailed", `an item is over MaxInputBytesPerBatch (${maxBytes})`);
      }
      if (current.length > 0 && (current.length >= maxItems || bytes([...current, item]) > maxBytes)) {
        batches.push(current);
        current = [];
      }
      current.push(item);
    }
    if (current.length > 0) batches.push(current);
    return batches.map((Items) => (batchInput === undefined ? { Items } : { BatchInput: batchInput, Items }));
  }

  private async writeResults(
    name: string,
    state: Obj,
    input: Json,
    mapRunArn: string,
    results: { input: Json; output?: Json; error?: StatesError }[],
  ): Promise<Json> {
    const writer = record(state.ResultWriter, `${name}.ResultWriter`);
    allowOnly(writer, new Set(["Resource", "Parameters"]), `${name}.ResultWriter`);
    if (writer.Resource !== "arn:aws:states:::s3:putObject") unsupported(`Resource ${String(writer.Resource)}`, name);
    const where = record(this.template(writer.Parameters, input), `${name}.ResultWriter.Parameters`);
    const bucket = where.Bucket as string;
    const folder = `${(where.Prefix as string).replace(/\/+$/, "")}/${mapRunArn.slice(mapRunArn.lastIndexOf(":") + 1)}`;
    const files: { Key: string; Size: number }[] = [];
    for (const [file, status] of [
      ["SUCCEEDED_0.json", "SUCCEEDED"],
      ["FAILED_0.json", "FAILED"],
    ] as const) {
      const rows = results
        .filter((r) => r !== undefined && (r.error === undefined) === (status === "SUCCEEDED"))
        .map((r) => ({
          Input: JSON.stringify(r.input),
          Status: status,
          ...(r.error === undefined
            ? { Output: JSON.stringify(r.output) }
            : { Error: r.error.error, Cause: r.error.causeText }),
        }));
      if (rows.length === 0) continue;
      const body = JSON.stringify(rows);
      await this.options.s3.write(bucket, `${folder}/${file}`, body);
      files.push({ Key: `${folder}/${file}`, Size: Buffer.byteLength(body) });
    }
    const manifest = { DestinationBucket: bucket, MapRunArn: mapRunArn, ResultFiles: files };
    await this.options.s3.write(bucket, `${folder}/manifest.json`, JSON.stringify(manifest));
    return { MapRunArn: mapRunArn, ResultWriterDetails: { Bucket: bucket, Key: `${folder}/manifest.json` } };
  }

  /** A number field given as itself or as `<field>Path`. */
  private number(state: Obj, field: string, input: Json): number | undefined {
    const path = state[`${field}Path`];
    const v = path === undefined ? state[field] : select(path as string, input, this.context);
    if (v === undefined) return undefined;
    if (typeof v !== "number" || !Number.isInteger(v) || v < 0) {
      throw new StatesError("States.Runtime", `${field} is not a non-negative integer: ${JSON.stringify(v)}`);
    }
    return v;
  }

  /** A payload template evaluated against the input (`.$` keys are paths). */
  private template(t: Json, input: Json): Json {
    if (Array.isArray(t)) return t.map((v) => this.template(v, input));
    if (t === null || typeof t !== "object") return t;
    const out: Obj = {};
    for (const [k, v] of Object.entries(t as Obj)) {
      if (k.endsWith(".$")) out[k.slice(0, -2)] = select(v as string, input, this.context);
      else out[k] = this.template(v, input);
    }
    return out;
  }
}

/** ResultPath then OutputPath. */
function output(state: Obj, input: Json, result: Json): Json {
  const resultPath = (state.ResultPath as string | undefined) ?? "$";
  let merged: Json;
  if (resultPath === "$") merged = result;
  else {
    merged = structuredClone(input);
    const keys = pathKeys(resultPath);
    let o = merged as Obj;
    for (const k of keys.slice(0, -1)) {
      if (o[k] === undefined) o[k] = {};
      o = o[k] as Obj;
    }
    o[keys[keys.length - 1] as string] = result;
  }
  const outputPath = state.OutputPath as string | undefined;
  return outputPath === undefined ? merged : select(outputPath, merged, {});
}

/** `$`, `$.a.b` of the data, or `$$.a.b` of the context. */
function select(path: string, data: Json, context: Obj): Json {
  const root = path.startsWith("$$") ? context : data;
  let v: Json = root;
  for (const k of pathKeys(path.startsWith("$$") ? path.slice(1) : path)) {
    if (v === null || typeof v !== "object" || !(k in (v as Obj))) {
      throw new StatesError("States.Runtime", `the path ${path} matches nothing`);
    }
    v = (v as Obj)[k];
  }
  return v;
}

function pathKeys(path: string): string[] {
  if (!/^\$(\.[A-Za-z_][A-Za-z0-9_]*)*$/.test(path)) unsupported(`path ${path}`, "a path");
  return path === "$" ? [] : path.slice(2).split(".");
}

function matches(names: readonly string[], error: string): boolean {
  return names.some(
    (n) => n === error || n === "States.ALL" || (n === "States.TaskFailed" && error !== "States.Timeout"),
  );
}

function record(v: Json, what: string): Obj {
  if (v === null || typeof v !== "object" || Array.isArray(v)) throw new Error(`interpreter: ${what} is not an object`);
  return v as Obj;
}

function allowOnly(o: Obj, allowed: ReadonlySet<string>, where: string): void {
  for (const k of Object.keys(o)) if (!allowed.has(k)) unsupported(`field ${k}`, where);
}

function unsupported(what: string, where: string): never {
  throw new Error(`interpreter: ${what} in ${where} is not implemented`);
}

/**
 * The sharded audit's state machine definition as osls resolves it for `stage` (`osls print`: serverless.yml with
 * infra/audit-state-machine.yml included and its `${...}` settings filled in); `Fn::GetAtt` references to the step
 * functions are left as written.
 */
export async function printedDefinition(stage = "local"): Promise<Json> {
  const run = await runCommand(
    process.execPath,
    [join(ROOT, "node_modules/osls/bin/serverless.js"), "print", "--stage", stage, "--format", "json"],
    {
      env: {
        PATH: process.env.PATH,
        HOME: process.env.HOME,
        SLS_TELEMETRY_DISABLED: "1",
        SLS_NOTIFICATIONS_MODE: "off",
      },
    },
  );
  if (run.code !== 0) throw new Error(`osls print exited ${run.code}:\n${run.stdout}\n${run.stderr}`);
  const config = JSON.parse(run.stdout.slice(run.stdout.indexOf("{"))) as {
    stepFunctions: { stateMachines: Record<string, { definition: Json }> };
  };
  const machine = config.stepFunctions.stateMachines.auditSharded;
  if (machine === undefined) throw new Error("serverless.yml has no auditSharded state machine");
  return machine.definition;
}

/** The function key a Task's `FunctionName: { Fn::GetAtt: [key, Arn] }` names (`auditPlan`...). */
export function functionKey(ref: Json): string {
  const att = (ref as { "Fn::GetAtt"?: unknown } | null)?.["Fn::GetAtt"];
  if (!Array.isArray(att) || typeof att[0] !== "string" || att[1] !== "Arn") {
    throw new Error(`interpreter: FunctionName ${JSON.stringify(ref)} is not { Fn::GetAtt: [<function>, Arn] }`);
  }
  return att[0];
}
