/**
 * A small reader for the official CEL conformance tests: protobuf text format (the subset those files use) and
 * the `cel.expr.conformance.test.SimpleTestFile` message (cel-spec proto/cel/expr/conformance/test/simple.proto),
 * turned into plain, engine-independent data. values.ts turns the values into the engine's JS values.
 *
 * Text format handled: `#` comments; `name: scalar`, `name { … }`, `name: { … }`, `name < … >`, `name: [a, b]`;
 * optional `,`/`;` separators; expanded `Any` fields (`[type.googleapis.com/google.protobuf.Duration] { … }`);
 * single- or double-quoted strings with C escapes (octal and `\x` escapes are bytes, `\u`/`\U` code points), and
 * adjacent strings concatenated. Unknown SimpleTest fields are an error, so a schema change is noticed.
 */

export type TextScalar = { kind: "string"; bytes: Uint8Array } | { kind: "literal"; text: string };

export interface TextField {
  /** The field name, or `[type.url]` for an expanded Any / extension. */
  name: string;
  value: TextScalar | TextMessage;
  line: number;
}

export interface TextMessage {
  kind: "message";
  fields: TextField[];
}

// ---------------------------------------------------------------------------------------------------------------
// Text format

type Token =
  | { kind: "punct"; text: string; line: number }
  | { kind: "literal"; text: string; line: number }
  | { kind: "string"; bytes: Uint8Array; line: number }
  | { kind: "extension"; text: string; line: number };

const utf8 = new TextEncoder();

function isWordChar(c: string): boolean {
  return /[A-Za-z0-9_.+-]/.test(c);
}

function tokenize(source: string, origin: string): Token[] {
  const out: Token[] = [];
  let i = 0;
  let line = 1;
  const fail = (msg: string): never => {
    throw new Error(`${origin}:${line}: ${msg}`);
  };
  while (i < source.length) {
    const c = source[i]!;
    if (c === "\n") {
      line++;
      i++;
    } else if (c === " " || c === "\t" || c === "\r") {
      i++;
    } else if (c === "#") {
      while (i < source.length && source[i] !== "\n") i++;
    } else if (c === '"' || c === "'") {
      const [bytes, end] = readQuoted(source, i, fail);
      out.push({ kind: "string", bytes, line });
      i = end;
    } else if (c === "[") {
      // At a field-name position this is an extension name; at a value position a list. Decide by the previous
      // token: after `:` it is a list.
      const prev = out.at(-1);
      if (prev?.kind === "punct" && prev.text === ":") {
        out.push({ kind: "punct", text: "[", line });
        i++;
      } else {
        const end = source.indexOf("]", i);
        if (end === -1) fail("unterminated [extension name]");
        out.push({ kind: "extension", text: source.slice(i + 1, end).trim(), line });
        i = end + 1;
      }
    } else if ("{}<>:,;]".includes(c)) {
      out.push({ kind: "punct", text: c, line });
      i++;
    } else if (isWordChar(c)) {
      let j = i;
      while (j < source.length && isWordChar(source[j]!)) j++;
      out.push({ kind: "literal", text: source.slice(i, j), line });
      i = j;
    } else {
      fail(`unexpected character ${JSON.stringify(c)}`);
    }
  }
  return out;
}

/** Reads a quoted string starting at `start`; returns its bytes and the index after the closing quote. */
function readQuoted(source: string, start: number, fail: (msg: string) => never): [Uint8Array, number] {
  const quote = source[start]!;
  const bytes: number[] = [];
  let i = start + 1;
  const pushText = (s: string) => {
    for (const b of utf8.encode(s)) bytes.push(b);
  };
  for (;;) {
    if (i >= source.length || source[i] === "\n") fail("unterminated string");
    const c = source[i]!;
    if (c === quote) return [Uint8Array.from(bytes), i + 1];
    if (c !== "\\") {
      const cp = source.codePointAt(i)!;
      pushText(String.fromCodePoint(cp));
      i += cp > 0xffff ? 2 : 1;
      continue;
    }
    const e = source[i + 1];
    i += 2;
    switch (e) {
      case "n":
        bytes.push(0x0a);
        break;
      case "t":
        bytes.push(0x09);
        break;
      case "r":
        bytes.push(0x0d);
        break;
      case "a":
        bytes.push(0x07);
        break;
      case "b":
        bytes.push(0x08);
        break;
      case "f":
        bytes.push(0x0c);
        break;
      case "v":
        bytes.push(0x0b);
        break;
      case "\\":
      case "'":
      case '"':
      case "?":
        bytes.push(e.charCodeAt(0));
        break;
      case "x":
      case "X": {
        const m = /^[0-9A-Fa-f]{1,2}/.exec(source.slice(i, i + 2));
        if (m === null) fail("bad \\x escape");
        bytes.push(Number.parseInt(m![0], 16));
        i += m![0].length;
        break;
      }
      case "u":
      case "U": {
        const n = e === "u" ? 4 : 8;
        const hex = source.slice(i, i + n);
        if (!/^[0-9A-Fa-f]+$/.test(hex) || hex.length !== n) fail(`bad \\${e} escape`);
        pushText(String.fromCodePoint(Number.parseInt(hex, 16)));
        i += n;
        break;
      }
      default: {
        const m = /^[0-7]{1,3}/.exec(source.slice(i - 1, i + 2));
        if (m === null) fail(`unknown escape \\${e}`);
        bytes.push(Number.parseInt(m![0], 8) & 0xff);
        i += m![0].length - 1;
      }
    }
  }
}

/** Parses protobuf text format into an untyped message tree. */
export function parseTextFormat(source: string, origin = "<text>"): TextMessage {
  const tokens = tokenize(source, origin);
  let pos = 0;
  const fail = (msg: string): never => {
    const t = tokens[Math.min(pos, tokens.length - 1)];
    throw new Error(`${origin}:${t?.line ?? 0}: ${msg}`);
  };
  const peek = () => tokens[pos];
  const isPunct = (t: Token | undefined, text: string) => t?.kind === "punct" && t.text === text;

  function parseScalar(): TextScalar {
    const t = peek();
    if (t?.kind === "literal") {
      pos++;
      return { kind: "literal", text: t.text };
    }
    if (t?.kind === "string") {
      const parts: Uint8Array[] = [];
      while (peek()?.kind === "string") parts.push((tokens[pos++] as { bytes: Uint8Array }).bytes);
      const all = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
      let o = 0;
      for (const p of parts) {
        all.set(p, o);
        o += p.length;
      }
      return { kind: "string", bytes: all };
    }
    return fail("expected a scalar value");
  }

  function parseValue(): TextScalar | TextMessage {
    const t = peek();
    if (isPunct(t, "{") || isPunct(t, "<")) {
      const close = (t as { text: string }).text === "{" ? "}" : ">";
      pos++;
      const m = parseFields(close);
      pos++;
      return m;
    }
    return parseScalar();
  }

  function parseFields(close: string | undefined): TextMessage {
    const fields: TextField[] = [];
    for (;;) {
      const t = peek();
      if (t === undefined) {
        if (close !== undefined) fail(`expected ${close}`);
        return { kind: "message", fields };
      }
      if (close !== undefined && isPunct(t, close)) return { kind: "message", fields };
      let name: string;
      if (t.kind === "literal") name = t.text;
      else if (t.kind === "extension") name = `[${t.text}]`;
      else return fail("expected a field name");
      pos++;
      const hasColon = isPunct(peek(), ":");
      if (hasColon) pos++;
      if (hasColon && isPunct(peek(), "[")) {
        pos++;
        while (!isPunct(peek(), "]")) {
          fields.push({ name, value: parseValue(), line: t.line });
          if (isPunct(peek(), ",")) pos++;
          else if (!isPunct(peek(), "]")) fail("expected , or ] in a list");
        }
        pos++;
      } else {
        if (!hasColon && !isPunct(peek(), "{") && !isPunct(peek(), "<")) fail(`expected : after ${name}`);
        fields.push({ name, value: parseValue(), line: t.line });
      }
      if (isPunct(peek(), ",") || isPunct(peek(), ";")) pos++;
    }
  }

  return parseFields(undefined);
}

// ---------------------------------------------------------------------------------------------------------------
// SimpleTestFile

/** A CEL type of a `type_env` declaration or a `deduced_type` (cel.expr.Type). */
export type SpecType =
  | { kind: "primitive"; name: "bool" | "int" | "uint" | "double" | "string" | "bytes" }
  | { kind: "dyn" }
  | { kind: "null" }
  | { kind: "list"; elem: SpecType }
  | { kind: "map"; key: SpecType; value: SpecType }
  | { kind: "wellKnown"; name: "any" | "timestamp" | "duration" }
  | { kind: "message"; name: string }
  | { kind: "wrapper"; of: string }
  | { kind: "type"; of: SpecType | undefined }
  | { kind: "abstract"; name: string; params: SpecType[] }
  | { kind: "unsupported"; what: string };

/** A value of a binding or an expectation (cel.expr.Value), engine-independent. */
export type SpecValue =
  | { kind: "null" }
  | { kind: "bool"; value: boolean }
  | { kind: "int"; value: bigint }
  | { kind: "uint"; value: bigint }
  | { kind: "double"; value: number }
  | { kind: "string"; value: string }
  | { kind: "bytes"; value: Uint8Array }
  | { kind: "list"; values: SpecValue[] }
  | { kind: "map"; entries: [SpecValue, SpecValue][] }
  | { kind: "type"; name: string }
  | { kind: "timestamp"; seconds: bigint; nanos: number }
  | { kind: "duration"; seconds: bigint; nanos: number }
  | { kind: "enum"; type: string; value: number }
  /** A protobuf message in an Any (other than Timestamp and Duration). */
  | { kind: "message"; typeUrl: string };

export type SpecDecl = { kind: "ident"; name: string; type: SpecType } | { kind: "function"; name: string };

/** A `bindings` entry (cel.expr.ExprValue). */
export type SpecBinding = { kind: "value"; value: SpecValue } | { kind: "error" } | { kind: "unknown" };

/** The result matcher. A test without one expects `true` (simple.proto). */
export type SpecExpectation =
  | { kind: "value"; value: SpecValue }
  | { kind: "typedResult"; value: SpecValue | undefined; deducedType: SpecType | undefined }
  | { kind: "error"; messages: string[] }
  | { kind: "unknown" };

export interface SpecTest {
  name: string;
  description: string;
  expr: string;
  disableCheck: boolean;
  disableMacros: boolean;
  checkOnly: boolean;
  container: string;
  typeEnv: SpecDecl[];
  bindings: Map<string, SpecBinding>;
  expect: SpecExpectation;
  /** Line of the test in its file. */
  line: number;
}

export interface SpecSection {
  name: string;
  description: string;
  tests: SpecTest[];
}

export interface SpecFile {
  name: string;
  description: string;
  sections: SpecSection[];
}

const utf8Decoder = new TextDecoder("utf-8");

function fieldError(f: TextField, msg: string): Error {
  return new Error(`line ${f.line}: ${f.name}: ${msg}`);
}

function asMessage(f: TextField): TextMessage {
  if (f.value.kind !== "message") throw fieldError(f, "expected a message");
  return f.value;
}

function asString(f: TextField): string {
  if (f.value.kind !== "string") throw fieldError(f, "expected a string");
  return utf8Decoder.decode(f.value.bytes);
}

function asBytes(f: TextField): Uint8Array {
  if (f.value.kind !== "string") throw fieldError(f, "expected a string");
  return f.value.bytes;
}

function asLiteral(f: TextField): string {
  if (f.value.kind !== "literal") throw fieldError(f, "expected a number or an enum name");
  return f.value.text;
}

function asBool(f: TextField): boolean {
  const t = asLiteral(f);
  if (t === "true" || t === "True" || t === "t" || t === "1") return true;
  if (t === "false" || t === "False" || t === "f" || t === "0") return false;
  throw fieldError(f, `not a bool: ${t}`);
}

function asInteger(f: TextField): bigint {
  const t = asLiteral(f);
  if (!/^-?(0x[0-9a-fA-F]+|[0-9]+)$/.test(t)) throw fieldError(f, `not an integer: ${t}`);
  return t.startsWith("-") ? -BigInt(t.slice(1)) : BigInt(t);
}

function asDouble(f: TextField): number {
  const t = asLiteral(f).toLowerCase();
  const sign = t.startsWith("-") ? -1 : 1;
  const body = t.replace(/^[-+]/, "");
  if (body === "inf" || body === "infinity") return sign * Number.POSITIVE_INFINITY;
  if (body === "nan") return Number.NaN;
  const n = Number(body.replace(/f$/, ""));
  if (Number.isNaN(n)) throw fieldError(f, `not a double: ${t}`);
  return sign * n;
}

/** The single field of a oneof-like message (e.g. Value, Type): its name and field. */
function single(m: TextMessage, what: string): TextField | undefined {
  if (m.fields.length > 1)
    throw new Error(`${what}: expected one field, got ${m.fields.map((f) => f.name).join(", ")}`);
  return m.fields[0];
}

const PRIMITIVES: Record<string, "bool" | "int" | "uint" | "double" | "string" | "bytes"> = {
  BOOL: "bool",
  INT64: "int",
  UINT64: "uint",
  DOUBLE: "double",
  STRING: "string",
  BYTES: "bytes",
};

function readType(m: TextMessage): SpecType {
  const f = single(m, "Type");
  if (f === undefined) return { kind: "unsupported", what: "empty type" };
  switch (f.name) {
    case "dyn":
      return { kind: "dyn" };
    case "null":
      return { kind: "null" };
    case "primitive": {
      const p = PRIMITIVES[asLiteral(f)];
      return p === undefined
        ? { kind: "unsupported", what: `primitive ${asLiteral(f)}` }
        : { kind: "primitive", name: p };
    }
    case "wrapper":
      return { kind: "wrapper", of: asLiteral(f) };
    case "well_known": {
      const w = asLiteral(f);
      if (w === "ANY") return { kind: "wellKnown", name: "any" };
      if (w === "TIMESTAMP") return { kind: "wellKnown", name: "timestamp" };
      if (w === "DURATION") return { kind: "wellKnown", name: "duration" };
      return { kind: "unsupported", what: `well_known ${w}` };
    }
    case "list_type": {
      const e = asMessage(f).fields.find((x) => x.name === "elem_type");
      if (e === undefined) throw fieldError(f, "list_type without elem_type");
      return { kind: "list", elem: readType(asMessage(e)) };
    }
    case "map_type": {
      const k = asMessage(f).fields.find((x) => x.name === "key_type");
      const v = asMessage(f).fields.find((x) => x.name === "value_type");
      if (k === undefined || v === undefined) throw fieldError(f, "map_type without key_type or value_type");
      return { kind: "map", key: readType(asMessage(k)), value: readType(asMessage(v)) };
    }
    case "message_type":
      return { kind: "message", name: asString(f) };
    case "type": {
      const inner = asMessage(f);
      return { kind: "type", of: inner.fields.length === 0 ? undefined : readType(inner) };
    }
    case "abstract_type": {
      const a = asMessage(f);
      return {
        kind: "abstract",
        name: asString(a.fields.find((x) => x.name === "name") ?? fail(f, "abstract_type without name")),
        params: a.fields.filter((x) => x.name === "parameter_types").map((x) => readType(asMessage(x))),
      };
    }
    default:
      return { kind: "unsupported", what: f.name };
  }
}

function fail(f: TextField, msg: string): never {
  throw fieldError(f, msg);
}

const ANY_PREFIX = "type.googleapis.com/";

function readSecondsNanos(m: TextMessage): { seconds: bigint; nanos: number } {
  let seconds = 0n;
  let nanos = 0;
  for (const f of m.fields) {
    if (f.name === "seconds") seconds = asInteger(f);
    else if (f.name === "nanos") nanos = Number(asInteger(f));
    else throw fieldError(f, "unknown field of Timestamp/Duration");
  }
  return { seconds, nanos };
}

/** Reads a cel.expr.Value. */
export function readValue(m: TextMessage): SpecValue {
  const f = single(m, "Value");
  if (f === undefined) throw new Error("Value: no kind set");
  switch (f.name) {
    case "null_value":
      return { kind: "null" };
    case "bool_value":
      return { kind: "bool", value: asBool(f) };
    case "int64_value":
      return { kind: "int", value: asInteger(f) };
    case "uint64_value":
      return { kind: "uint", value: asInteger(f) };
    case "double_value":
      return { kind: "double", value: asDouble(f) };
    case "string_value":
      return { kind: "string", value: asString(f) };
    case "bytes_value":
      return { kind: "bytes", value: asBytes(f) };
    case "list_value":
      return { kind: "list", values: asMessage(f).fields.map((v) => readValue(asMessage(v))) };
    case "map_value":
      return {
        kind: "map",
        entries: asMessage(f).fields.map((e) => {
          const entry = asMessage(e);
          const k = entry.fields.find((x) => x.name === "key");
          const v = entry.fields.find((x) => x.name === "value");
          if (k === undefined || v === undefined) throw fieldError(e, "map entry without key or value");
          return [readValue(asMessage(k)), readValue(asMessage(v))];
        }),
      };
    case "type_value":
      return { kind: "type", name: asString(f) };
    case "enum_value": {
      const e = asMessage(f);
      const type = e.fields.find((x) => x.name === "type");
      const value = e.fields.find((x) => x.name === "value");
      return { kind: "enum", type: type ? asString(type) : "", value: value ? Number(asInteger(value)) : 0 };
    }
    case "object_value": {
      const any = single(asMessage(f), "Any");
      if (any === undefined) throw fieldError(f, "empty Any");
      const url = any.name.startsWith("[") ? any.name.slice(1, -1) : "";
      if (url === `${ANY_PREFIX}google.protobuf.Timestamp`)
        return { kind: "timestamp", ...readSecondsNanos(asMessage(any)) };
      if (url === `${ANY_PREFIX}google.protobuf.Duration`)
        return { kind: "duration", ...readSecondsNanos(asMessage(any)) };
      return { kind: "message", typeUrl: url || "(type_url/value form)" };
    }
    default:
      throw fieldError(f, "unknown Value kind");
  }
}

function readErrorSet(m: TextMessage): string[] {
  return m.fields
    .filter((f) => f.name === "errors")
    .map((f) => {
      const msg = asMessage(f).fields.find((x) => x.name === "message");
      return msg ? asString(msg) : "";
    });
}

function readDecl(m: TextMessage): SpecDecl {
  let name = "";
  let decl: SpecDecl | undefined;
  for (const f of m.fields) {
    if (f.name === "name") name = asString(f);
    else if (f.name === "ident") {
      const t = asMessage(f).fields.find((x) => x.name === "type");
      decl = { kind: "ident", name: "", type: t ? readType(asMessage(t)) : { kind: "dyn" } };
    } else if (f.name === "function") decl = { kind: "function", name: "" };
    else throw fieldError(f, "unknown Decl field");
  }
  if (decl === undefined) throw new Error(`Decl ${name}: neither ident nor function`);
  return { ...decl, name };
}

function readBinding(m: TextMessage): [string, SpecBinding] {
  let key = "";
  let binding: SpecBinding | undefined;
  for (const f of m.fields) {
    if (f.name === "key") key = asString(f);
    else if (f.name === "value") {
      const ev = single(asMessage(f), "ExprValue");
      if (ev?.name === "value") binding = { kind: "value", value: readValue(asMessage(ev)) };
      else if (ev?.name === "error") binding = { kind: "error" };
      else if (ev?.name === "unknown") binding = { kind: "unknown" };
      else throw fieldError(f, "unknown ExprValue kind");
    } else throw fieldError(f, "unknown bindings field");
  }
  if (binding === undefined) throw new Error(`bindings ${key}: no value`);
  return [key, binding];
}

function readTest(m: TextMessage, line: number): SpecTest {
  const t: SpecTest = {
    name: "",
    description: "",
    expr: "",
    disableCheck: false,
    disableMacros: false,
    checkOnly: false,
    container: "",
    typeEnv: [],
    bindings: new Map(),
    expect: { kind: "value", value: { kind: "bool", value: true } },
    line,
  };
  for (const f of m.fields) {
    switch (f.name) {
      case "name":
        t.name = asString(f);
        break;
      case "description":
        t.description = asString(f);
        break;
      case "expr":
        t.expr = asString(f);
        break;
      case "disable_check":
        t.disableCheck = asBool(f);
        break;
      case "disable_macros":
        t.disableMacros = asBool(f);
        break;
      case "check_only":
        t.checkOnly = asBool(f);
        break;
      case "container":
        t.container = asString(f);
        break;
      case "type_env":
        t.typeEnv.push(readDecl(asMessage(f)));
        break;
      case "bindings": {
        const [k, v] = readBinding(asMessage(f));
        t.bindings.set(k, v);
        break;
      }
      case "value":
        t.expect = { kind: "value", value: readValue(asMessage(f)) };
        break;
      case "typed_result": {
        const r = asMessage(f);
        const result = r.fields.find((x) => x.name === "result");
        const deduced = r.fields.find((x) => x.name === "deduced_type");
        t.expect = {
          kind: "typedResult",
          value: result ? readValue(asMessage(result)) : undefined,
          deducedType: deduced ? readType(asMessage(deduced)) : undefined,
        };
        break;
      }
      case "eval_error":
      case "any_eval_errors":
        t.expect = { kind: "error", messages: readErrorSet(asMessage(f)) };
        break;
      case "unknown":
      case "any_unknowns":
        t.expect = { kind: "unknown" };
        break;
      default:
        throw fieldError(f, "unknown SimpleTest field");
    }
  }
  return t;
}

/** Parses a `SimpleTestFile` in text format. `origin` names the file in error messages. */
export function parseSimpleTestFile(source: string, origin: string): SpecFile {
  const root = parseTextFormat(source, origin);
  const file: SpecFile = { name: "", description: "", sections: [] };
  try {
    for (const f of root.fields) {
      if (f.name === "name") file.name = asString(f);
      else if (f.name === "description") file.description = asString(f);
      else if (f.name === "section") {
        const section: SpecSection = { name: "", description: "", tests: [] };
        for (const s of asMessage(f).fields) {
          if (s.name === "name") section.name = asString(s);
          else if (s.name === "description") section.description = asString(s);
          else if (s.name === "test") section.tests.push(readTest(asMessage(s), s.line));
          else throw fieldError(s, "unknown SimpleTestSection field");
        }
        file.sections.push(section);
      } else throw fieldError(f, "unknown SimpleTestFile field");
    }
  } catch (e) {
    throw new Error(`${origin}: ${(e as Error).message}`);
  }
  return file;
}
