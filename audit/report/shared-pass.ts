/**
 * One pass over a run's spools for every writer, instead of one pass (or more) each: on a large run each pass
 * re-reads and re-parses the spool files, which was most of the time spent writing the reports.
 *
 * A writer declares what it takes from the pass once: a fact ({@link sharedFact}: counts and small lists, such as
 * the HTML report's counts by kind), gathered in every pass, or a product ({@link sharedProduct}: a file's body
 * rendered into text spools, such as the SARIF results), gathered only in a pass of a run whose writer asked for it
 * ({@link SharedFact.want}, called when the writer's files are made). The first read of a fact or product of a run
 * makes the pass for everything wanted and not yet gathered; the results are kept for that run until
 * {@link releaseShared} (the text spools' files are removed then). A product may be a file's text handed to its
 * writing as the pass renders it ({@link sharedStream}, live-text.ts): its read gives it as soon as the pass starts.
 */
import type { AuditResult, Finding, ObjectRecord } from "../model.js";
import { TextSpool, textSpoolWrites } from "../text-spool.js";
import { LiveText } from "./live-text.js";
import { objectsWithFindings } from "./stream.js";

/** Gathers one fact while the pass reads the run. */
export interface FactCollector<T> {
  /** Every finding, in the findings spool's order (the policy failures first). */
  finding?(f: Finding): void;
  /** Every document's record with its findings (after each of them was given to `finding`), in input order. */
  object?(record: ObjectRecord, findings: readonly Finding[]): void;
  /** The fact, once the pass has read everything. */
  result(): T | Promise<T>;
  /** A product given as soon as the pass starts (with the live text it renders into); `result` ends it then. */
  early?: T;
}

/** What a collector is made with. */
export interface PassContext {
  run: AuditResult;
  /** A new text spool for rendered text, removed with the run's other results. */
  textSpool(): TextSpool;
  /** A new live text, read while the pass renders it (closed when the pass ends; the pass waits for its reader). */
  liveText(): LiveText;
}

type Collect<T> = (pass: PassContext) => FactCollector<T>;

/** A fact or product: the function gives it for a run (gathered by the run's next pass when it is not yet). */
export interface SharedFact<T> {
  (run: AuditResult): Promise<T>;
  /** Makes the run's next pass gather it too (a product is gathered only when wanted or read). */
  want(run: AuditResult): void;
}

interface RunState {
  results: Map<Collect<unknown>, Promise<unknown>>;
  wanted: Set<Collect<unknown>>;
  spools: TextSpool[];
}

const facts: Collect<unknown>[] = [];
const states = new WeakMap<AuditResult, RunState>();

function stateOf(run: AuditResult): RunState {
  let state = states.get(run);
  if (state === undefined) {
    state = { results: new Map(), wanted: new Set(), spools: [] };
    states.set(run, state);
  }
  return state;
}

function shared<T>(collect: Collect<T>): SharedFact<T> {
  const c = collect as Collect<unknown>;
  const get = (run: AuditResult): Promise<T> => {
    const state = stateOf(run);
    if (!state.results.has(c)) {
      const missing = [...new Set([...facts, ...state.wanted, c])].filter((x) => !state.results.has(x));
      const { early, gathered } = gather(run, missing, state);
      // Handled here: a failed pass fails every read of what it gathers, not the process.
      gathered.catch(() => {});
      missing.forEach((x, i) => {
        const e = early[i];
        state.results.set(x, e !== undefined ? Promise.resolve(e) : gathered.then((results) => results[i]));
      });
    }
    return state.results.get(c) as Promise<T>;
  };
  return Object.assign(get, {
    want(run: AuditResult): void {
      stateOf(run).wanted.add(c);
    },
  });
}

/** Declares a fact: gathered in every pass. */
export function sharedFact<T>(collect: Collect<T>): SharedFact<T> {
  facts.push(collect as Collect<unknown>);
  return shared(collect);
}

/** Declares a product: gathered in a pass of a run that wants it (or reads it). */
export function sharedProduct<T>(collect: Collect<T>): SharedFact<T> {
  return shared(collect);
}

/**
 * Declares a product that is a file's live text, with what the file needs besides it (`T`), given as soon as the
 * pass starts: `collect` renders into `pass.liveText()` and gives its collector's `early`.
 */
export function sharedStream<T extends object>(collect: Collect<T>): SharedFact<T> {
  return shared(collect);
}

/** Forgets what was gathered for the run and removes its text spools' files. */
export function releaseShared(run: AuditResult): void {
  const state = states.get(run);
  if (state === undefined) return;
  states.delete(run);
  for (const s of state.spools) s.dispose();
}

/** Text on its way to the text spools' files held at most while the pass reads on. */
const WRITING_BYTES = 16 * 1024 * 1024;
/**
 * Every this many documents the pass lets the event loop run (the text spools' writes complete, the other files'
 * writing and report.json's thread go on), and waits for the writes when too much text is on its way to disk.
 */
const DOCUMENTS_PER_STEP = 256;

/**
 * Starts the pass for `collects`: the collectors are made at once (the products they give early come back then),
 * and `gathered` gives every result once the pass has read the run.
 */
function gather(
  run: AuditResult,
  collects: readonly Collect<unknown>[],
  state: RunState,
): { early: unknown[]; gathered: Promise<unknown[]> } {
  // A run whose records are on disk puts its rendered text on disk too; a small run keeps it in memory.
  const memoryBytes = run.objects.onDisk || run.findings.onDisk ? 0 : Number.POSITIVE_INFINITY;
  const live: LiveText[] = [];
  const pass: PassContext = {
    run,
    textSpool() {
      const spool = new TextSpool({ memoryBytes });
      state.spools.push(spool);
      return spool;
    },
    liveText() {
      const text = new LiveText(() => pass.textSpool());
      live.push(text);
      return text;
    },
  };
  const collectors = collects.map((c) => c(pass));
  const gathered = read(run, collectors, live).then(
    async () => {
      const results: unknown[] = [];
      for (const c of collectors) {
        const result = await c.result();
        results.push(c.early ?? result);
      }
      for (const text of live) text.close();
      return results;
    },
    (err: unknown) => {
      for (const text of live) text.fail(err instanceof Error ? err : new Error(String(err)));
      throw err;
    },
  );
  return { early: collectors.map((c) => c.early), gathered };
}

/** The pass itself: the run read once, every collector given every finding and record. */
async function read(run: AuditResult, collectors: readonly FactCollector<unknown>[], live: readonly LiveText[]) {
  // Let the reads that started the pass begin reading their live texts before there is text to spill.
  await new Promise<void>((resolve) => setImmediate(resolve));
  const onFinding = collectors.filter((c) => c.finding !== undefined);
  const onObject = collectors.filter((c) => c.object !== undefined);
  const finding = (f: Finding): void => {
    for (const c of onFinding) c.finding!(f);
  };
  let n = 0;
  for (const { record, findings } of objectsWithFindings(run, finding)) {
    for (const f of findings) finding(f);
    for (const c of onObject) c.object!(record, findings);
    if (++n % DOCUMENTS_PER_STEP === 0) {
      await new Promise<void>((resolve) => setImmediate(resolve));
      await textSpoolWrites(WRITING_BYTES);
      for (const text of live) await text.drained();
    }
  }
}
