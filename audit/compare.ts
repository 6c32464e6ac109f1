/**
 * Better or worse since the previous run: findings are matched by their stable id (findings.ts, `findingId`). A finding
 * keeps the `firstSeen` of the earliest run that reported it; new findings are first seen in this run.
 */
import { createInterface } from "node:readline";
import type { Readable } from "node:stream";
import { ConfigError } from "#lib";
import type { Comparison, Finding } from "./model.js";

/** What the comparison reads of a previous finding (a report of any version has these fields). */
export type PreviousFinding = Pick<Finding, "id" | "severity" | "message" | "firstSeen" | "object" | "field">;

/**
 * A previous run's report, as the comparison reads it: its findings' first-seen times by id in memory (a few tens of
 * bytes per finding), and the findings themselves read again from the report, in order, for the resolved ones.
 */
export interface PreviousReport {
  runId: string;
  firstSeen: ReadonlyMap<string, string>;
  findings(): AsyncIterable<PreviousFinding>;
}

/** A previous report held in memory (tests, small reports). */
export function previousReportOf(runId: string, findings: readonly PreviousFinding[]): PreviousReport {
  return {
    runId,
    firstSeen: new Map(findings.map((f) => [f.id, f.firstSeen])),
    async *findings() {
      yield* findings;
    },
  };
}

/** Reports up to this size that are not laid out as tollgate writes them are parsed whole. */
const MAX_WHOLE_REPORT = 256 * 1024 * 1024;

/**
 * Reads a report.json from a stream without holding it: tollgate writes it as `JSON.stringify(run, null, 2)` lays it
 * out, so each element of `findings` is the block of lines from `    {` to `    }`, parsed alone. A report laid out
 * otherwise (reformatted by another tool) is parsed whole, up to 256 MiB.
 *
 * @param open opens the report again for each read (the findings are read twice: ids first, then the resolved ones)
 * @throws ConfigError when it is not a tollgate report
 */
export async function readPreviousReport(open: () => Promise<Readable>, where: string): Promise<PreviousReport> {
  const firstSeen = new Map<string, string>();
  let runId: string | undefined;
  let laidOut = true;
  for await (const item of reportItems(await open(), where)) {
    if (item.kind === "other-layout") {
      laidOut = false;
      break;
    }
    if (item.kind === "runId") runId = item.runId;
    else firstSeen.set(item.finding.id, item.finding.firstSeen);
  }
  if (!laidOut) {
    const parsed = await wholeReport(await open(), where);
    return previousReportOf(parsed.runId, parsed.findings);
  }
  if (runId === undefined) throw new ConfigError(`${where} is not a tollgate report (no runId)`);
  return {
    runId,
    firstSeen,
    async *findings() {
      for await (const item of reportItems(await open(), where)) if (item.kind === "finding") yield item.finding;
    },
  };
}

type ReportItem =
  | { kind: "runId"; runId: string }
  | { kind: "finding"; finding: PreviousFinding }
  | { kind: "other-layout" };

async function* reportItems(stream: Readable, where: string): AsyncGenerator<ReportItem> {
  const lines = createInterface({ input: stream, crlfDelay: Number.POSITIVE_INFINITY });
  const bad = (what: string) => new ConfigError(`${where} is not a tollgate report (${what})`);
  let first = true;
  let inFindings = false;
  let sawFindings = false;
  let block: string[] | undefined;
  try {
    for await (const line of lines) {
      if (first) {
        first = false;
        if (line !== "{") {
          yield { kind: "other-layout" };
          return;
        }
        continue;
      }
      if (!inFindings) {
        if (line.startsWith('  "runId": ')) {
          const value: unknown = JSON.parse(line.slice(11).replace(/,$/, ""));
          if (typeof value !== "string") throw bad("runId is not a string");
          yield { kind: "runId", runId: value };
        } else if (line === '  "findings": [],') {
          sawFindings = true;
        } else if (line === '  "findings": [') {
          inFindings = true;
          sawFindings = true;
        }
        continue;
      }
      if (block === undefined) {
        if (line === "    {") block = [line];
        else if (line === "  ]," || line === "  ]") inFindings = false;
        else throw bad(`unexpected line in findings: ${JSON.stringify(line.slice(0, 80))}`);
        continue;
      }
      if (line === "    }" || line === "    },") {
        block.push("}");
        const finding: unknown = JSON.parse(block.join("\n"));
        block = undefined;
        if (!isPreviousFinding(finding)) throw bad("a finding without a string id");
        yield { kind: "finding", finding };
      } else {
        block.push(line);
      }
    }
  } catch (err) {
    if (err instanceof ConfigError) throw err;
    throw new ConfigError(`${where} is not a tollgate report (${err instanceof Error ? err.message : String(err)})`, {
      cause: err,
    });
  } finally {
    lines.close();
    stream.destroy();
  }
  if (!sawFindings) throw bad("no findings");
}

async function wholeReport(stream: Readable, where: string): Promise<{ runId: string; findings: PreviousFinding[] }> {
  const chunks: Buffer[] = [];
  let bytes = 0;
  for await (const chunk of stream as AsyncIterable<Buffer>) {
    bytes += chunk.length;
    if (bytes > MAX_WHOLE_REPORT) {
      stream.destroy();
      throw new ConfigError(
        `${where} is over ${MAX_WHOLE_REPORT} bytes and not laid out as tollgate writes report.json, so it is not read`,
      );
    }
    chunks.push(chunk);
  }
  let parsed: unknown;
  try {
    // Our own report file, written by a previous run: not untrusted input from the audited objects.
    parsed = JSON.parse(Buffer.concat(chunks).toString("utf8"));
  } catch (err) {
    throw new ConfigError(`${where} is not a tollgate report (not JSON)`, { cause: err });
  }
  if (!isPreviousReport(parsed)) throw new ConfigError(`${where} is not a tollgate report`);
  return parsed;
}

function isPreviousFinding(f: unknown): f is PreviousFinding {
  return typeof f === "object" && f !== null && typeof (f as { id?: unknown }).id === "string";
}

/**
 * Compares findings with a previous report as they come: {@link Comparer.observe} carries `firstSeen` over (in
 * place) before the finding is written out, and {@link Comparer.result} gives the comparison once all are seen.
 * Memory: the previous findings, and one id per current finding.
 */
export class Comparer {
  private readonly now = new Set<string>();
  private newFindings = 0;
  private persistingFindings = 0;

  constructor(private readonly previous: PreviousReport) {}

  /** @param f a finding of this run, with `firstSeen` set to this run's start */
  observe(f: Finding): void {
    this.now.add(f.id);
    if (!this.previous.firstSeen.has(f.id)) {
      this.newFindings++;
      return;
    }
    this.persistingFindings++;
    const old = this.previous.firstSeen.get(f.id);
    if (typeof old === "string" && old < f.firstSeen) f.firstSeen = old;
  }

  async result(): Promise<Comparison> {
    const resolved: Comparison["resolved"] = [];
    for await (const f of this.previous.findings()) {
      if (this.now.has(f.id)) continue;
      const r: Comparison["resolved"][number] = { id: f.id, severity: f.severity, message: f.message };
      if (f.object !== undefined) r.object = f.object;
      if (f.field !== undefined) r.field = f.field;
      resolved.push(r);
    }
    return {
      previousRunId: this.previous.runId,
      newFindings: this.newFindings,
      resolvedFindings: resolved.length,
      persistingFindings: this.persistingFindings,
      resolved,
    };
  }
}

/**
 * Carries `firstSeen` over from the previous report (in place) and returns the comparison.
 *
 * @param findings this run's findings, with `firstSeen` set to this run's start
 */
export function compareWithPrevious(findings: Finding[], previous: PreviousReport): Promise<Comparison> {
  const comparer = new Comparer(previous);
  for (const f of findings) comparer.observe(f);
  return comparer.result();
}

/** Whether parsed JSON looks like a report this comparison can read. */
function isPreviousReport(v: unknown): v is { runId: string; findings: PreviousFinding[] } {
  if (typeof v !== "object" || v === null) return false;
  const r = v as Record<string, unknown>;
  return (
    typeof r.runId === "string" &&
    Array.isArray(r.findings) &&
    r.findings.every((f) => typeof f === "object" && f !== null && typeof (f as { id?: unknown }).id === "string")
  );
}
