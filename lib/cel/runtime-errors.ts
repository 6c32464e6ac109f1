/**
 * CEL runtime errors in cel-go's words (interpreter/attributes.go, common/types/err.go and overflow.go,
 * common/decls `MaybeNoSuchOverload`, interpreter `evalBinary`): the engine's error codes and texts translated, the
 * library errors kept as they are (they already carry Kubernetes' and cel-go's texts).
 *
 * "No such overload" has three forms in cel-go, which the API server quotes as they are
 * (`'no such overload: size(int)': call arguments did not match …`):
 * - a function no overload of which takes the arguments' runtime types: `no such overload: size(int)` (the
 *   receiver of a method is the first argument);
 * - an operator whose left operand has the operator's trait (an int can be added, a string compared) but whose
 *   right operand does not fit: `no such overload`; likewise when the left operand is a string, timestamp or
 *   duration (which cel-go asks to "receive" the call);
 * - an operator whose left operand has neither: `no such overload: _+_`.
 */
import { EvaluationError } from "./engine.js";

/** The outcome of a runtime error: cel-go's text, and whether it is a "no such overload". */
export interface RuntimeErrorText {
  readonly message: string;
  readonly noSuchOverload: boolean;
}

/** cel-go's `TypeName()` of an engine type name (`list<int>` → `list`, `null` → `null_type`). */
function celGoTypeName(engineType: string): string {
  let t = engineType.trim();
  // A dyn value's runtime type: `dyn<string>`.
  while (t.startsWith("dyn<") && t.endsWith(">")) t = t.slice(4, -1).trim();
  if (t === "null") return "null_type";
  const generic = /^(list|map|optional)</.exec(t);
  if (generic !== null) return generic[1] === "optional" ? "optional_type" : generic[1]!;
  return t;
}

const BINARY_OPERATORS = ["==", "!=", "<=", ">=", "<", ">", "+", "-", "*", "/", "%", "in"];

/** `<left> <op> <right>` of the engine's operator errors, split at the operator outside type parameters. */
function splitBinary(text: string): { left: string; op: string } | undefined {
  let depth = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (c === "<" && depth >= 0 && text[i + 1] !== " " && text[i + 1] !== "=") depth++;
    else if (c === ">" && depth > 0 && text[i - 1] !== " ") depth--;
    else if (c === " " && depth === 0) {
      const end = text.indexOf(" ", i + 1);
      const op = end === -1 ? undefined : text.slice(i + 1, end);
      if (op !== undefined && BINARY_OPERATORS.includes(op)) return { left: text.slice(0, i), op };
    }
  }
  return undefined;
}

function splitTypes(list: string): string[] {
  const out: string[] = [];
  let depth = 0;
  let start = 0;
  for (let i = 0; i < list.length; i++) {
    const c = list[i];
    if (c === "<") depth++;
    else if (c === ">") depth--;
    else if (c === "," && depth === 0) {
      out.push(list.slice(start, i));
      start = i + 1;
    }
  }
  if (list.trim() !== "") out.push(list.slice(start));
  return out.map(celGoTypeName);
}

/** The cel-go traits (common/types/traits) of the types an operator needs on its left operand. */
const OPERATOR_TRAITS: Readonly<Record<string, readonly string[]>> = {
  "+": ["int", "uint", "double", "string", "bytes", "list", "google.protobuf.Duration", "google.protobuf.Timestamp"],
  "-": ["int", "uint", "double", "google.protobuf.Duration", "google.protobuf.Timestamp"],
  "*": ["int", "uint", "double"],
  "/": ["int", "uint", "double"],
  "%": ["int", "uint"],
  "<": ["bool", "int", "uint", "double", "string", "bytes", "google.protobuf.Duration", "google.protobuf.Timestamp"],
  "-_": ["int", "double", "bool", "google.protobuf.Duration"],
};

/** Types cel-go asks to receive an operator call they have no trait for (they answer `no such overload`). */
const RECEIVERS = new Set(["string", "google.protobuf.Duration", "google.protobuf.Timestamp"]);

/** cel-go's text for an operator whose operands no overload takes. */
function operatorText(op: string, leftType: string): string {
  const left = celGoTypeName(leftType);
  const traits = OPERATOR_TRAITS[op === "<=" || op === ">" || op === ">=" ? "<" : op];
  if (traits === undefined || traits.includes(left) || RECEIVERS.has(left)) return "no such overload";
  return `no such overload: ${op === "-_" ? "-_" : `_${op}_`}`;
}

/** cel-go's text of the engine's "no such overload" errors (a library's own text is kept). */
function noSuchOverloadText(summary: string): string {
  const prefix = "no such overload: ";
  const binary = summary.startsWith(prefix) ? splitBinary(summary.slice(prefix.length)) : undefined;
  if (binary !== undefined) return operatorText(binary.op, binary.left);
  const unary = /^no such overload: ([-!])([a-z][\w.<>]*)$/.exec(summary);
  if (unary !== null) return unary[1] === "-" ? operatorText("-_", unary[2]!) : "no such overload";
  const call = /^found no matching overload for '(.*)\((.*)\)'$/.exec(summary);
  if (call !== null) {
    const head = call[1]!;
    const args = splitTypes(call[2]!);
    const dot = head.lastIndexOf(".");
    if (dot === -1) return `no such overload: ${head}(${args.join(", ")})`;
    const receiver = celGoTypeName(head.slice(0, dot));
    return `no such overload: ${head.slice(dot + 1)}(${[receiver, ...args].join(", ")})`;
  }
  return summary.startsWith("no such overload") ? summary : "no such overload";
}

/** The Go types of cel-go's values (`%T`), by the engine's type names. */
const GO_VALUE_TYPES: Readonly<Record<string, string>> = {
  int: "types.Int",
  uint: "types.Uint",
  double: "types.Double",
  bool: "types.Bool",
  string: "types.String",
  bytes: "types.Bytes",
  null: "types.Null",
  "google.protobuf.Duration": "types.Duration",
  "google.protobuf.Timestamp": "types.Timestamp",
};

/** cel-go's text for an error thrown while evaluating. */
export function runtimeErrorText(e: unknown): RuntimeErrorText {
  if (!(e instanceof EvaluationError)) {
    return { message: e instanceof Error ? e.message : String(e), noSuchOverload: false };
  }
  const summary = e.summary ?? e.message;
  switch (e.code) {
    case "no_such_key": {
      const m = /^No such key: (.*)$/i.exec(summary);
      return { message: `no such key: ${m?.[1] ?? summary}`, noSuchOverload: false };
    }
    case "index_out_of_bounds": {
      const m = /index (-?\d+)/.exec(summary);
      return { message: `index out of bounds: ${m?.[1] ?? summary}`, noSuchOverload: false };
    }
    case "division_by_zero":
      return { message: "division by zero", noSuchOverload: false };
    case "modulo_by_zero":
      return { message: "modulus by zero", noSuchOverload: false };
    case "numeric_overflow":
      return {
        message: /unsigned/i.test(summary) ? "unsigned integer overflow" : "integer overflow",
        noSuchOverload: false,
      };
    case "optional_value_missing":
      return { message: "optional.none() dereference", noSuchOverload: false };
    case "no_such_overload":
    case "no_matching_overload":
      return { message: noSuchOverloadText(summary), noSuchOverload: true };
    case "invalid_comprehension_range": {
      // cel-go's interpreter prints the Go type of the range value (%T)
      const t = /type '([^']*)'/.exec(summary)?.[1] ?? "";
      return { message: `got '${GO_VALUE_TYPES[t] ?? t}', expected iterable type`, noSuchOverload: false };
    }
    case "field_type_mismatch":
    case "invalid_logical_operand":
      return { message: "no such overload", noSuchOverload: true };
    default:
      return { message: summary, noSuchOverload: summary.startsWith("no such overload") };
  }
}
