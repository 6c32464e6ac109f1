/**
 * A faster `test` (Go `regexp.MatchString`: is there a match anywhere) for the compiled programs of re2js, the RE2
 * port lib/go/regexp.ts runs: a DFA built lazily from the program, state by state, with a transition table for ASCII
 * and a map for other code points, so that a test is one table step per character. The program is re2js's own
 * (parsed, simplified and compiled by it, with Go's semantics), so the DFA answers what re2js's machines answer; it
 * only reads the input the way re2js's UTF-16 input does (a surrogate pair is one code point, a lone surrogate is
 * itself).
 *
 * Programs with empty-width assertions other than `^`/`$` of the whole text (`\b`, `(?m)` line anchors),
 * lookbehinds, or more states than {@link MAX_STATES} are left to re2js (`dfaTest` returns undefined); so are
 * tests that would need a new state once the process holds {@link MAX_TOTAL_STATES}.
 *
 * re2js internals used (re2js is pinned; test/unit/lib/go/regexp-dfa.test.ts checks them): a compiled RE2JS holds
 * its RE2 in `re2Input`, whose `prog` has `inst` (the instructions: `op`, `out`, `arg`, `runes`, `matchRune`),
 * `start` and `numLb`.
 */

/** re2js instruction opcodes (Inst.ALT …). */
const ALT = 1;
const ALT_MATCH = 2;
const CAPTURE = 3;
const EMPTY_WIDTH = 4;
const MATCH = 6;
const NOP = 7;
const RUNE = 8;
const RUNE1 = 9;
const RUNE_ANY = 10;
const RUNE_ANY_NOT_NL = 11;

/** re2js empty-width flags (Utils.EMPTY_BEGIN_TEXT, EMPTY_END_TEXT). */
const BEGIN_TEXT = 4;
const END_TEXT = 8;

/** The most DFA states one pattern builds; past it the pattern's tests go to re2js. */
const MAX_STATES = 512;

/**
 * The most DFA states all patterns of the process build (each about 1 KB): past it, patterns without a DFA state
 * for what they read go to re2js. Bounds the memory of many patterns fed adversarial text.
 */
const MAX_TOTAL_STATES = 50_000;

/** Code points other than ASCII whose next state one state remembers; others are worked out each time. */
const MAX_OTHER_TRANSITIONS = 256;

let totalStates = 0;

interface Inst {
  readonly op: number;
  readonly out: number;
  readonly arg: number;
  readonly runes: Int32Array;
  matchRune(r: number): boolean;
}

interface Program {
  readonly inst: readonly Inst[];
  readonly start: number;
  readonly numLb: number;
}

interface State {
  /** The instructions the state is in (sorted), after following every empty step its position allows. */
  readonly ids: readonly number[];
  /** A match is reached already: the test is true. */
  readonly match: boolean;
  /** A match is reached when the text ends here. */
  readonly matchAtEnd: boolean;
  /** The next state for each ASCII character, made on first use. */
  readonly ascii: (State | undefined)[];
  /** The next state for other code points, made on first use. */
  readonly other: Map<number, State>;
}

/** The DFA of one program. */
class Dfa {
  private readonly states = new Map<string, State>();
  /** The state at the start of the text. */
  readonly first: State;
  /** The instructions a match starting later begins with (after the empty steps of a middle position). */
  private readonly restart: readonly number[];

  constructor(private readonly prog: Program) {
    this.restart = this.closure([prog.start], 0);
    this.first = this.make(this.closure([prog.start], BEGIN_TEXT), BEGIN_TEXT);
  }

  get size(): number {
    return this.states.size;
  }

  /**
   * The instructions reachable from `ids` by empty steps at a position whose assertions are `flags` (re2js
   * Machine.add: an empty-width instruction passes when every condition it asks for holds). An empty-width
   * instruction that does not pass is kept: it may pass at the end of the text.
   */
  private closure(ids: readonly number[], flags: number): number[] {
    const inst = this.prog.inst;
    const seen = new Set<number>();
    const stack = [...ids].reverse();
    while (stack.length > 0) {
      const pc = stack.pop()!;
      if (seen.has(pc)) continue;
      seen.add(pc);
      const i = inst[pc]!;
      switch (i.op) {
        case ALT:
        case ALT_MATCH:
          stack.push(i.arg, i.out);
          break;
        case CAPTURE:
        case NOP:
          stack.push(i.out);
          break;
        case EMPTY_WIDTH:
          if ((i.arg & ~flags) === 0) stack.push(i.out);
          break;
      }
    }
    return [...seen].sort((a, b) => a - b);
  }

  /** The state of a set of instructions reached at a position with assertions `flags`. */
  private make(ids: number[], flags: number): State {
    const inst = this.prog.inst;
    const match = ids.some((pc) => inst[pc]!.op === MATCH);
    const atEnd = match || this.closure(ids, flags | END_TEXT).some((pc) => inst[pc]!.op === MATCH);
    return { ids, match, matchAtEnd: atEnd, ascii: new Array<State | undefined>(128), other: new Map() };
  }

  /** The state after `state` reads the code point `r` (at a middle position), or undefined past the state limit. */
  next(state: State, r: number): State | undefined {
    const inst = this.prog.inst;
    const stepped: number[] = [];
    for (const pc of state.ids) {
      const i = inst[pc]!;
      let add: boolean;
      switch (i.op) {
        case RUNE:
          add = i.matchRune(r);
          break;
        case RUNE1:
          add = r === i.runes[0];
          break;
        case RUNE_ANY:
          add = true;
          break;
        case RUNE_ANY_NOT_NL:
          add = r !== 10;
          break;
        default:
          add = false;
      }
      if (add) stepped.push(i.out);
    }
    const ids = this.closure([...stepped, ...this.restart], 0);
    const key = ids.join(",");
    let next = this.states.get(key);
    if (next === undefined) {
      if (this.states.size >= MAX_STATES || totalStates >= MAX_TOTAL_STATES) return undefined;
      next = this.make(ids, 0);
      this.states.set(key, next);
      totalStates++;
    }
    if (r < 128) state.ascii[r] = next;
    else if (state.other.size < MAX_OTHER_TRANSITIONS) state.other.set(r, next);
    return next;
  }
}

/** Whether every empty-width instruction asks only for the start or the end of the text, and there are no lookbehinds. */
function isSupported(prog: Program): boolean {
  if (prog.numLb !== 0) return false;
  for (const i of prog.inst) {
    if (i.op < ALT || i.op > RUNE_ANY_NOT_NL) return false;
    if (i.op === EMPTY_WIDTH && (i.arg & ~(BEGIN_TEXT | END_TEXT)) !== 0) return false;
  }
  return true;
}

/** The program of a compiled RE2JS (re2js internals, see the module comment), or undefined. */
function programOf(compiled: unknown): Program | undefined {
  const prog = (compiled as { re2Input?: { prog?: Partial<Program> } }).re2Input?.prog;
  if (prog === undefined || !Array.isArray(prog.inst) || typeof prog.start !== "number") return undefined;
  return prog as Program;
}

/** A DFA test of an RE2JS pattern, or undefined when the pattern is left to re2js. */
export type DfaTest = (value: string) => boolean | undefined;

/** A DFA test for a compiled RE2JS pattern, or undefined when its program is not one the DFA runs. */
export function dfaTestOf(compiled: unknown): DfaTest | undefined {
  const prog = programOf(compiled);
  if (prog === undefined || !isSupported(prog)) return undefined;
  let dfa: Dfa | undefined = new Dfa(prog);
  return (value) => {
    if (dfa === undefined) return undefined;
    const r = run(dfa, value);
    // Past the state limit the pattern goes to re2js for good.
    if (r === undefined) dfa = undefined;
    return r;
  };
}

/** Runs the DFA over the text, reading code points as re2js's UTF-16 input does. */
function run(dfa: Dfa, s: string): boolean | undefined {
  let state = dfa.first;
  const n = s.length;
  for (let i = 0; i < n; i++) {
    if (state.match) return true;
    let r = s.charCodeAt(i);
    if (r >= 0xd800 && r <= 0xdbff && i + 1 < n) {
      const low = s.charCodeAt(i + 1);
      if (low >= 0xdc00 && low <= 0xdfff) {
        r = (r - 0xd800) * 1024 + (low - 0xdc00) + 0x10000;
        i++;
      }
    }
    const next = (r < 128 ? state.ascii[r] : state.other.get(r)) ?? dfa.next(state, r);
    if (next === undefined) return undefined;
    state = next;
  }
  return state.matchAtEnd;
}
