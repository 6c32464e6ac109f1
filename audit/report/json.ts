/**
 * report.json (the complete run, versioned by `apiVersion`/`reportVersion`; its JSON Schema is
 * report.schema.json beside this file) and summary.json (the totals alone, for dashboards and `latest.json`).
 * report.json is written as it is read from the run's spools, laid out as `JSON.stringify(run, null, 2)` would.
 */
import type { AuditResult, AuditRunHeader, Finding, ObjectRecord } from "../model.js";
import type { JsonThreadData } from "./json-thread.js";
import { jsonArray, nestedJson, single } from "./stream.js";
import { fromThread, type ThreadEntry, threadEntry } from "./thread.js";
import type { ReportWriter } from "./types.js";

/** The members before `objects`, in report order. */
const HEAD_KEYS = [
  "apiVersion",
  "kind",
  "reportVersion",
  "runId",
  "startedAt",
  "finishedAt",
  "tool",
  "bundle",
  "sources",
  "failOn",
] as const satisfies readonly (keyof AuditRunHeader)[];

/** The members after `findings`, in report order (absent ones left out). */
const TAIL_KEYS = [
  "summary",
  "previous",
  "comparison",
  "waivers",
  "notes",
] as const satisfies readonly (keyof AuditRunHeader)[];

type Member = (typeof HEAD_KEYS)[number] | (typeof TAIL_KEYS)[number];

/** What report.json is written from: the run's members it holds, its objects and its findings. */
export type JsonRun = Pick<AuditRunHeader, Member> & {
  objects: Iterable<ObjectRecord>;
  findings: Iterable<Finding>;
};

function member(run: JsonRun, key: Member): string | undefined {
  const value = run[key];
  return value === undefined ? undefined : `  ${JSON.stringify(key)}: ${nestedJson(value, 1)}`;
}

export async function* reportJson(run: JsonRun): AsyncGenerator<string> {
  const head = HEAD_KEYS.map((k) => member(run, k)).filter((m) => m !== undefined);
  yield `{\n${head.join(",\n")},\n  "objects": `;
  yield* jsonArray(run.objects, 1);
  yield `,\n  "findings": `;
  yield* jsonArray(run.findings, 1);
  const tail = TAIL_KEYS.map((k) => member(run, k)).filter((m) => m !== undefined);
  yield `,\n${tail.join(",\n")}\n}\n`;
}

/**
 * Where and with what report.json of a run is rendered on a thread of its own (thread.ts): when its spools are on
 * disk (a large run) and a thread can start; undefined otherwise.
 */
export function jsonThread(run: AuditResult): { at: ThreadEntry; data: JsonThreadData } | undefined {
  const objects = run.objects.file;
  const findings = run.findings.file;
  const at = threadEntry("json-thread");
  if (objects === undefined || findings === undefined || at === undefined) return undefined;
  const header = Object.fromEntries(
    [...HEAD_KEYS, ...TAIL_KEYS].filter((k) => run[k] !== undefined).map((k) => [k, run[k]]),
  ) as JsonThreadData["header"];
  return { at, data: { header, objects, findings, controllerLinks: run.controllerLinks ?? [] } };
}

/** report.json of a run, on its own thread when it can be (the bytes are the same). */
export function reportJsonFile(run: AuditResult): AsyncGenerator<string | Uint8Array> {
  const thread = jsonThread(run);
  return thread === undefined ? reportJson(run) : fromThread(thread.at, { ...thread.data });
}

export const jsonWriter: ReportWriter = {
  name: "json",
  render(run) {
    return [{ name: "report.json", chunks: () => reportJsonFile(run), contentType: "application/json" }];
  },
};

/** The summary document: everything but the objects and findings. */
export function summaryOf(run: AuditRunHeader): Record<string, unknown> {
  const out: Record<string, unknown> = {
    apiVersion: run.apiVersion,
    kind: "AuditSummary",
    reportVersion: run.reportVersion,
    runId: run.runId,
    startedAt: run.startedAt,
    finishedAt: run.finishedAt,
    tool: run.tool,
    bundle: run.bundle,
    sources: run.sources,
    failOn: run.failOn,
    summary: run.summary,
  };
  if (run.previous !== undefined) out.previous = run.previous;
  if (run.comparison !== undefined) {
    const { resolved: _resolved, ...counts } = run.comparison;
    out.comparison = counts;
  }
  if (run.waivers !== undefined) out.waivers = run.waivers;
  return out;
}

export const summaryWriter: ReportWriter = {
  name: "summary",
  render(run) {
    return [
      {
        name: "summary.json",
        chunks: single(() => `${JSON.stringify(summaryOf(run), null, 2)}\n`),
        contentType: "application/json",
      },
    ];
  },
};
