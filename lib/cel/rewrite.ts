/**
 * Source rewrites before the type check, where the engine's language differs from cel-go's (Kubernetes 1.36):
 *
 * - the engine's `has()` only accepts identifier/select chains, while cel-go accepts any operand
 *   (`has(self.items[0].name)`): such calls become `__has(<operand>, '<field>')`;
 * - `'%s: %d'.format([s, i])` is exempt from the homogeneous-literal check in Kubernetes: the list literal's
 *   elements are wrapped in `dyn()` so the engine types it `list<dyn>`;
 * - two-variable comprehensions (Kubernetes 1.32+, cel-go ext.TwoVarComprehensions), which the engine lacks:
 *   `x.all(k, v, p)` becomes a one-variable comprehension over `__entries(x)` (index/key and value pairs) with `k`
 *   and `v` bound by the engine's `cel.bind` (expressions may not call `cel.bind` themselves: program.ts checks
 *   that on the original tree). The two variables are typed dyn.
 * - the optional library's `optMap` and `optFlatMap` macros, which the engine lacks, expanded as cel-go expands
 *   them: `o.optMap(x, e)` is `o.hasValue() ? optional.of(<e with x bound to o.value()>) : optional.none()`,
 *   `optFlatMap` the same without `optional.of` (its `e` is an optional);
 * - the lists extension's `sortBy` macro (Kubernetes 1.34+), which the engine lacks: as cel-go expands it,
 *   `l.sortBy(e, key)` binds the list once and sorts it by the keys `l.map(e, key)`
 *   (`__sortByAssociatedKeys`, cel-go's `@sortByAssociatedKeys`, in libraries/lists.ts). cel-go refuses a
 *   receiver that is a literal value or a map; such calls are left as they are and fail to compile.
 *
 * The functions the rewrites call are in libraries/core.ts; the cost estimator recognises the rewrites
 * (cost/comprehensions.ts) and costs them as cel-go costs the original.
 */
import { callOf, checkedTypeName, identifierName, type SyntaxNode, syntaxChildren } from "./engine.js";
import { applyEdits, type MappedText, type TextEdit } from "./source-map.js";

function isSelectChain(n: SyntaxNode): boolean {
  if (n.op === "id") return true;
  if (n.op === ".") return isSelectChain(n.args[0]);
  return false;
}

/** Method names of the calls the rewrites may change (besides has()); see mayRewrite. */
const REWRITTEN_METHODS = new Set(["format", "optMap", "optFlatMap", "sortBy"]);

/**
 * Whether the tree has a call some rewrite below may change: `has()` of an operand that is not a select chain, or
 * a method call of a rewritten name (two-variable comprehensions: with three or four arguments). Rendering a tree
 * without one gives back its text: most expressions are left out of that work.
 */
function mayRewrite(n: SyntaxNode): boolean {
  const call = callOf(n);
  if (call !== undefined) {
    const arg = call.args[0];
    if (call.target === undefined) {
      if (call.name === "has" && arg?.op === "." && !isSelectChain(arg)) return true;
    } else if (
      REWRITTEN_METHODS.has(call.name) ||
      (TWO_VARIABLE_MACROS.has(call.name) && call.args.length >= 3 && call.args.length <= 4)
    ) {
      return true;
    }
  }
  for (const c of syntaxChildren(n)) if (mayRewrite(c)) return true;
  return false;
}

/** The rewritten source text, or undefined when nothing needs rewriting. `syntax` is the parse of `text`. */
export function rewriteSource(text: string, syntax: SyntaxNode): string | undefined {
  if (!mayRewrite(syntax)) return undefined;
  let changed = false;
  const sorted = (n: SyntaxNode) => [...syntaxChildren(n)].sort((a, b) => a.start - b.start);
  const copy = (n: SyntaxNode): string => {
    let out = "";
    let pos = n.start;
    for (const c of sorted(n)) {
      if (c.start < pos) return text.slice(n.start, n.end); // unexpected overlap: keep the source as is
      out += text.slice(pos, c.start) + render(c);
      pos = c.end;
    }
    return out + text.slice(pos, n.end);
  };
  const render = (n: SyntaxNode): string => {
    const call = callOf(n);
    const arg = call?.args[0];
    if (call?.target === undefined && call?.name === "has" && call.args.length === 1 && arg?.op === ".") {
      if (!isSelectChain(arg)) {
        changed = true;
        return `__has(${render(arg.args[0])}, '${arg.args[1]}')`;
      }
    }
    if (call?.target !== undefined) {
      const target = call.target;
      if (call.name === "format" && call.args.length === 1 && arg?.op === "list") {
        changed = true;
        const items = arg.args.map((e) => `dyn(${render(e)})`);
        return `${render(target)}.format([${items.join(", ")}])`;
      }
      const optional = optionalMacro(call.name, call.args, target, render);
      if (optional !== undefined) {
        changed = true;
        return optional;
      }
      const sortBy = sortByMacro(call.name, call.args, target, render);
      if (sortBy !== undefined) {
        changed = true;
        return sortBy;
      }
      const two = twoVariableComprehension(call.name, call.args, render);
      if (two !== undefined) {
        changed = true;
        return two(render(target));
      }
    }
    return copy(n);
  };
  const out = text.slice(0, syntax.start) + render(syntax) + text.slice(syntax.end);
  return changed ? out : undefined;
}

/** The expansion of `target.optMap(x, e)` or `target.optFlatMap(x, e)`, if the call is one. */
function optionalMacro(
  name: string,
  args: readonly SyntaxNode[],
  target: SyntaxNode,
  render: (n: SyntaxNode) => string,
): string | undefined {
  if ((name !== "optMap" && name !== "optFlatMap") || args.length !== 2) return undefined;
  const x = identifierName(args[0]);
  if (x === undefined) return undefined;
  const t = render(target);
  const bound = `cel.bind(${x}, (${t}).value(), ${render(args[1]!)})`;
  const some = name === "optMap" ? `optional.of(${bound})` : bound;
  return `((${t}).hasValue() ? ${some} : optional.none())`;
}

/** The receivers cel-go's sortBy accepts: a list literal, identifier, comprehension, call or select. */
function sortableReceiver(n: SyntaxNode): boolean {
  return n.op !== "value" && n.op !== "map";
}

/** The expansion of `target.sortBy(e, key)`, if the call is one. */
function sortByMacro(
  name: string,
  args: readonly SyntaxNode[],
  target: SyntaxNode,
  render: (n: SyntaxNode) => string,
): string | undefined {
  if (name !== "sortBy" || args.length !== 2 || !sortableReceiver(target)) return undefined;
  const e = identifierName(args[0]);
  if (e === undefined) return undefined;
  const input = "__sortBy_input";
  return `cel.bind(${input}, ${render(target)}, ${input}.__sortByAssociatedKeys(${input}.map(${e}, ${render(args[1]!)})))`;
}

const TWO_VARIABLE_MACROS = new Set([
  "all",
  "exists",
  "existsOne",
  "exists_one",
  "transformList",
  "transformMap",
  "transformMapEntry",
]);

/** The rewrite of a two-variable comprehension (`name` called with `args` on a receiver), if it is one. */
function twoVariableComprehension(
  name: string,
  args: readonly SyntaxNode[],
  render: (n: SyntaxNode) => string,
): ((target: string) => string) | undefined {
  if (!TWO_VARIABLE_MACROS.has(name) || args.length < 3 || args.length > 4) return undefined;
  const kn = identifierName(args[0]);
  const vn = identifierName(args[1]);
  if (kn === undefined || vn === undefined) return undefined;
  const bind = (e: SyntaxNode) => `cel.bind(${kn}, __e[0], cel.bind(${vn}, __e[1], ${render(e)}))`;
  const last = args[args.length - 1]!;
  const filter = args.length === 4 ? args[2]! : undefined;
  switch (name) {
    case "all":
    case "exists":
      return args.length === 3 ? (t) => `__entries(${t}).${name}(__e, ${bind(last)})` : undefined;
    case "existsOne":
    case "exists_one":
      return args.length === 3 ? (t) => `__entries(${t}).exists_one(__e, ${bind(last)})` : undefined;
    case "transformList":
      return filter === undefined
        ? (t) => `__entries(${t}).map(__e, ${bind(last)})`
        : (t) => `__entries(${t}).filter(__e, ${bind(filter)}).map(__e, ${bind(last)})`;
    case "transformMap":
      return filter === undefined
        ? (t) => `__fromEntries(__entries(${t}).map(__e, [__e[0], dyn(${bind(last)})]))`
        : (t) => `__fromEntries(__entries(${t}).filter(__e, ${bind(filter)}).map(__e, [__e[0], dyn(${bind(last)})]))`;
    case "transformMapEntry":
      return args.length === 3 ? (t) => `__mergeMaps(__entries(${t}).map(__e, ${bind(last)}))` : undefined;
    default:
      return undefined;
  }
}

const DURATION_TYPE = "google.protobuf.Duration";
const TIMESTAMP_TYPE = "google.protobuf.Timestamp";

/**
 * `duration + timestamp`, which the engine types as a duration where cel-go's `add_duration_timestamp` overload
 * gives a timestamp: after a type check, each such sum (found by its operands' checked types) is written
 * `(timestamp) + (duration)`, the same value of the same cost, for the text to be checked again. Undefined when the
 * checked tree has none.
 */
export function durationPlusTimestamp(source: MappedText, syntax: SyntaxNode): MappedText | undefined {
  const edits: TextEdit[] = [];
  const visit = (n: SyntaxNode): void => {
    if (n.op === "+") {
      const [l, r] = n.args;
      if (checkedTypeName(l) === DURATION_TYPE && checkedTypeName(r) === TIMESTAMP_TYPE) {
        edits.push(swapped(source.text, n.start, source.text.lastIndexOf("+", r.start), n.end));
        return;
      }
    }
    for (const c of syntaxChildren(n)) visit(c);
  };
  visit(syntax);
  return edits.length === 0 ? undefined : applyEdits(source, edits);
}

/** Parentheses opened minus closed in a text, outside its string literals. */
function parenBalance(text: string): number {
  const bare = text.replace(/'(?:\\.|[^'\\])*'|"(?:\\.|[^"\\])*"/g, "");
  return (bare.match(/\(/g)?.length ?? 0) - (bare.match(/\)/g)?.length ?? 0);
}

/**
 * The edit that swaps the operands of the sum from `start` to `end` whose `+` is at `plus`. A node's range leaves out
 * the parentheses around its first and last operand, so each side takes the ones it lacks.
 */
function swapped(text: string, start: number, plus: number, end: number): TextEdit {
  let from = start;
  for (let open = -parenBalance(text.slice(start, plus)); open > 0 && from > 0; from--) {
    if (text[from - 1] === "(") open--;
  }
  let to = end;
  for (let close = parenBalance(text.slice(plus + 1, end)); close > 0 && to < text.length; to++) {
    if (text[to] === ")") close--;
  }
  const left = text.slice(from, plus);
  const right = text.slice(plus + 1, to);
  return { at: from, remove: to - from, insert: `(${right.trim()}) + (${left.trim()})` };
}
