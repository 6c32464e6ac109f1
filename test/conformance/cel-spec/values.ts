/**
 * cel-spec values (textproto.ts `SpecValue`) against the engine's JS values, as the adapter passes them:
 * int → bigint, uint → UnsignedInt, double → number, string, bytes → Uint8Array, bool, null, list → Array,
 * map → plain object (string keys, as the engine builds map literals) or Map (other keys), timestamp → Date
 * with its nanoseconds (lib/cel/time-values.ts), duration → Duration, type → the engine's Type (name only).
 *
 * Equality is typed: int, uint and double are distinct; NaN equals NaN; maps compare regardless of order.
 */
import { Duration, Optional, UnsignedInt } from "../../../lib/cel/engine.js";
import { compileExpression, createCelEnvironment, evaluate } from "../../../lib/cel/index.js";
import { goTimeOf, timestampValue } from "../../../lib/cel/time-values.js";
import type { SpecType, SpecValue } from "./textproto.js";

/** A binding or declaration the engine cannot represent (the test fails with this reason). */
export class NotRepresentableError extends Error {
  override name = "NotRepresentableError";
}

/** The engine's class of type values (not exported by the engine): taken from the value of `int`. */
const TypeClass: abstract new (...args: never[]) => { readonly name: string } = (() => {
  const p = compileExpression(createCelEnvironment(), "int");
  if (p.kind === "failed") throw new Error(`cannot evaluate \`int\`: ${p.message}`);
  const r = evaluate(p.program, {}, Number.POSITIVE_INFINITY);
  if (r.kind !== "value" || r.value === null || typeof r.value !== "object") throw new Error("`int` is not a type");
  return (r.value as object).constructor as abstract new (
    ...args: never[]
  ) => { readonly name: string };
})();

/** The engine's name of a CEL type, for environment declarations; undefined when the adapter cannot declare it. */
export function toDeclaration(t: SpecType): string | undefined {
  switch (t.kind) {
    case "primitive":
      return t.name;
    case "dyn":
      return "dyn";
    case "null":
      return "null";
    case "list": {
      const e = toDeclaration(t.elem);
      return e === undefined ? undefined : `list<${e}>`;
    }
    case "map": {
      const k = toDeclaration(t.key);
      const v = toDeclaration(t.value);
      return k === undefined || v === undefined ? undefined : `map<${k}, ${v}>`;
    }
    case "wellKnown":
      if (t.name === "timestamp") return "google.protobuf.Timestamp";
      if (t.name === "duration") return "google.protobuf.Duration";
      return undefined;
    case "message":
      return t.name === "google.protobuf.Timestamp" || t.name === "google.protobuf.Duration" ? t.name : undefined;
    case "type":
      return "type";
    default:
      return undefined;
  }
}

/** Whether a value holds a protobuf message or enum anywhere (such tests are skipped). */
export function hasProtoValue(v: SpecValue): boolean {
  switch (v.kind) {
    case "message":
    case "enum":
      return true;
    case "list":
      return v.values.some(hasProtoValue);
    case "map":
      return v.entries.some(([k, x]) => hasProtoValue(k) || hasProtoValue(x));
    default:
      return false;
  }
}

/** The engine's JS value of a cel-spec value. Throws NotRepresentableError when the engine has no such value. */
export function toEngineValue(v: SpecValue): unknown {
  switch (v.kind) {
    case "null":
      return null;
    case "bool":
    case "int":
    case "double":
    case "string":
    case "bytes":
      return v.value;
    case "uint":
      return new UnsignedInt(v.value);
    case "list":
      return v.values.map(toEngineValue);
    case "map": {
      if (v.entries.every(([k]) => k.kind === "string")) {
        const obj: Record<string, unknown> = {};
        for (const [k, x] of v.entries) {
          Object.defineProperty(obj, (k as { value: string }).value, {
            value: toEngineValue(x),
            enumerable: true,
            writable: true,
            configurable: true,
          });
        }
        return obj;
      }
      return new Map(v.entries.map(([k, x]) => [toEngineValue(k), toEngineValue(x)]));
    }
    case "timestamp":
      return timestampValue({ seconds: v.seconds, nanos: v.nanos, offset: 0 });
    case "duration":
      return new Duration(v.seconds, v.nanos);
    case "type":
      throw new NotRepresentableError("type value as a binding");
    case "enum":
    case "message":
      throw new NotRepresentableError(`protobuf ${v.kind} value`);
  }
}

// ---------------------------------------------------------------------------------------------------------------
// Typed equality

/** The CEL type name of an engine value. */
export function engineTypeName(v: unknown): string {
  switch (typeof v) {
    case "bigint":
      return "int";
    case "number":
      return "double";
    case "string":
      return "string";
    case "boolean":
      return "bool";
    case "undefined":
      return "undefined";
    case "object":
      if (v === null) return "null_type";
      if (v instanceof UnsignedInt) return "uint";
      if (v instanceof Uint8Array) return "bytes";
      if (Array.isArray(v) || v instanceof Set) return "list";
      if (v instanceof Map || Object.getPrototypeOf(v) === Object.prototype || Object.getPrototypeOf(v) === null)
        return "map";
      if (v instanceof Date) return "google.protobuf.Timestamp";
      if (v instanceof Duration) return "google.protobuf.Duration";
      if (v instanceof TypeClass) return "type";
      if (v instanceof Optional) return "optional_type";
      return `object ${(v as object).constructor?.name ?? "?"}`;
    default:
      return typeof v;
  }
}

function specTypeName(v: SpecValue): string {
  switch (v.kind) {
    case "null":
      return "null_type";
    case "timestamp":
      return "google.protobuf.Timestamp";
    case "duration":
      return "google.protobuf.Duration";
    default:
      return v.kind;
  }
}

/** The engine's name of a type value, in CEL's spelling (the engine calls `null_type` "null"). */
function typeValueName(t: { readonly name: string }): string {
  return t.name === "null" ? "null_type" : t.name;
}

function bytesEqual(a: Uint8Array, b: Uint8Array): boolean {
  return a.length === b.length && a.every((x, i) => x === b[i]);
}

/** A Duration's seconds and nanos (the engine normalises them to the same sign). */
function durationParts(d: Duration): { seconds: bigint; nanos: number } {
  return { seconds: BigInt(d.seconds), nanos: Number(d.nanos) };
}

/**
 * Compares an expected cel-spec value with an engine value. Returns undefined when equal, otherwise a short
 * description of the first difference (with its path inside lists and maps).
 */
export function differs(want: SpecValue, got: unknown, at = ""): string | undefined {
  const where = at === "" ? "" : ` at ${at}`;
  const mismatch = () =>
    `want ${specTypeName(want)} ${formatSpecValue(want)}, got ${engineTypeName(got)} ${formatEngineValue(got)}${where}`;
  switch (want.kind) {
    case "null":
      return got === null ? undefined : mismatch();
    case "bool":
    case "string":
      return got === want.value ? undefined : mismatch();
    case "int":
      return typeof got === "bigint" && got === want.value ? undefined : mismatch();
    case "uint":
      return got instanceof UnsignedInt && got.value === want.value ? undefined : mismatch();
    case "double":
      if (typeof got !== "number") return mismatch();
      return got === want.value || (Number.isNaN(got) && Number.isNaN(want.value)) ? undefined : mismatch();
    case "bytes":
      return got instanceof Uint8Array && bytesEqual(got, want.value) ? undefined : mismatch();
    case "type":
      return got instanceof TypeClass && typeValueName(got) === want.name ? undefined : mismatch();
    case "timestamp": {
      if (!(got instanceof Date)) return mismatch();
      const t = goTimeOf(got);
      return t.seconds === want.seconds && t.nanos === want.nanos ? undefined : mismatch();
    }
    case "duration": {
      if (!(got instanceof Duration)) return mismatch();
      const p = durationParts(got);
      return p.seconds === want.seconds && p.nanos === want.nanos ? undefined : mismatch();
    }
    case "list": {
      const arr = Array.isArray(got) ? got : got instanceof Set ? [...got] : undefined;
      if (arr === undefined) return mismatch();
      if (arr.length !== want.values.length) return `${mismatch()} (size ${arr.length}, want ${want.values.length})`;
      for (let i = 0; i < arr.length; i++) {
        const d = differs(want.values[i]!, arr[i], `${at}[${i}]`);
        if (d !== undefined) return d;
      }
      return undefined;
    }
    case "map":
      return differsMap(want, got, at, mismatch);
    case "enum":
    case "message":
      return `cannot compare a protobuf ${want.kind}${where}`;
  }
}

function differsMap(
  want: SpecValue & { kind: "map" },
  got: unknown,
  at: string,
  mismatch: () => string,
): string | undefined {
  if (engineTypeName(got) !== "map") return mismatch();
  const entries: [unknown, unknown][] =
    got instanceof Map ? [...got.entries()] : Object.entries(got as Record<string, unknown>);
  if (entries.length !== want.entries.length)
    return `${mismatch()} (size ${entries.length}, want ${want.entries.length})`;
  for (const [wk, wv] of want.entries) {
    const found = entries.find(([k]) => differs(wk, k) === undefined);
    const label = `${at}[${formatSpecValue(wk)}]`;
    if (found === undefined) {
      const stringified =
        !(got instanceof Map) &&
        wk.kind !== "string" &&
        entries.some(([k]) => k === formatSpecValue(wk).replace(/u$/, ""));
      if (stringified) return `${mismatch()} (map key ${formatSpecValue(wk)} of type ${wk.kind} became a string key)`;
      return `${mismatch()} (key ${formatSpecValue(wk)} missing)`;
    }
    const d = differs(wv, found[1], label);
    if (d !== undefined) return d;
  }
  return undefined;
}

// ---------------------------------------------------------------------------------------------------------------
// Formatting (CEL-like literals, for want/got texts)

const MAX_TEXT = 200;

function clip(s: string): string {
  return s.length > MAX_TEXT ? `${s.slice(0, MAX_TEXT - 1)}…` : s;
}

function formatDouble(n: number): string {
  if (Number.isNaN(n)) return "NaN";
  if (n === Number.POSITIVE_INFINITY) return "+Inf";
  if (n === Number.NEGATIVE_INFINITY) return "-Inf";
  if (Object.is(n, -0)) return "-0.0";
  const s = String(n);
  return /[.eE]/.test(s) ? s : `${s}.0`;
}

function formatBytes(b: Uint8Array): string {
  let s = "";
  for (const x of b)
    s +=
      x >= 0x20 && x < 0x7f && x !== 0x22 && x !== 0x5c
        ? String.fromCharCode(x)
        : `\\x${x.toString(16).padStart(2, "0")}`;
  return `b"${s}"`;
}

function formatSecondsNanos(seconds: bigint, nanos: number): string {
  if (nanos === 0) return `${seconds}s`;
  const neg = seconds < 0n || nanos < 0;
  const abs = (seconds < 0n ? -seconds : seconds) * 1_000_000_000n + BigInt(Math.abs(nanos));
  const whole = abs / 1_000_000_000n;
  const frac = (abs % 1_000_000_000n).toString().padStart(9, "0").replace(/0+$/, "");
  return `${neg ? "-" : ""}${whole}.${frac}s`;
}

function formatTimestamp(seconds: bigint, nanos: number): string {
  const ms = Number(seconds) * 1000;
  const d = new Date(ms);
  if (Number.isNaN(d.getTime())) return `timestamp(${seconds}s)`;
  const base = d.toISOString().replace(/\.000Z$/, "");
  return nanos === 0 ? `${base}Z` : `${base}.${String(nanos).padStart(9, "0").replace(/0+$/, "")}Z`;
}

/** A cel-spec value as a CEL-like literal. */
export function formatSpecValue(v: SpecValue): string {
  return clip(formatSpecInner(v));
}

function formatSpecInner(v: SpecValue): string {
  switch (v.kind) {
    case "null":
      return "null";
    case "bool":
      return String(v.value);
    case "int":
      return String(v.value);
    case "uint":
      return `${v.value}u`;
    case "double":
      return formatDouble(v.value);
    case "string":
      return JSON.stringify(v.value);
    case "bytes":
      return formatBytes(v.value);
    case "list":
      return `[${v.values.map(formatSpecInner).join(", ")}]`;
    case "map":
      return `{${v.entries.map(([k, x]) => `${formatSpecInner(k)}: ${formatSpecInner(x)}`).join(", ")}}`;
    case "type":
      return v.name;
    case "timestamp":
      return `timestamp("${formatTimestamp(v.seconds, v.nanos)}")`;
    case "duration":
      return `duration("${formatSecondsNanos(v.seconds, v.nanos)}")`;
    case "enum":
      return `${v.type}(${v.value})`;
    case "message":
      return `<${v.typeUrl}>`;
  }
}

/** An engine value as a CEL-like literal. */
export function formatEngineValue(v: unknown): string {
  return clip(formatEngineInner(v, 0));
}

function formatEngineInner(v: unknown, depth: number): string {
  if (depth > 8) return "…";
  switch (typeof v) {
    case "bigint":
      return String(v);
    case "number":
      return formatDouble(v);
    case "string":
      return JSON.stringify(v);
    case "boolean":
      return String(v);
    case "undefined":
      return "undefined";
    case "object": {
      if (v === null) return "null";
      if (v instanceof UnsignedInt) return `${v.value}u`;
      if (v instanceof Uint8Array) return formatBytes(v);
      if (Array.isArray(v) || v instanceof Set)
        return `[${[...v].map((x) => formatEngineInner(x, depth + 1)).join(", ")}]`;
      if (v instanceof Map) {
        return `{${[...v.entries()].map(([k, x]) => `${formatEngineInner(k, depth + 1)}: ${formatEngineInner(x, depth + 1)}`).join(", ")}}`;
      }
      if (v instanceof Date) {
        if (Number.isNaN(v.getTime())) return "timestamp(invalid)";
        const t = goTimeOf(v);
        return `timestamp("${formatTimestamp(t.seconds, t.nanos)}")`;
      }
      if (v instanceof Duration) {
        const p = durationParts(v);
        return `duration("${formatSecondsNanos(p.seconds, p.nanos)}")`;
      }
      if (v instanceof TypeClass) return typeValueName(v);
      if (v instanceof Optional) {
        return v.hasValue() ? `optional.of(${formatEngineInner(v.value(), depth + 1)})` : "optional.none()";
      }
      if (v instanceof Error) return `error(${v.message})`;
      if (engineTypeName(v) === "map") {
        return `{${Object.entries(v)
          .map(([k, x]) => `${JSON.stringify(k)}: ${formatEngineInner(x, depth + 1)}`)
          .join(", ")}}`;
      }
      return `<${(v as object).constructor?.name ?? "object"}>`;
    }
    default:
      return `<${typeof v}>`;
  }
}
