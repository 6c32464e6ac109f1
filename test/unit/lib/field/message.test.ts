import { describe, expect, it } from "vitest";
import {
  duplicate,
  invalid,
  notSupported,
  required,
  tooLong,
  tooMany,
  typeInvalid,
} from "../../../../lib/field/error.js";
import { aggregateMessage, formatValue } from "../../../../lib/field/message.js";
import { childOf, indexOf, keyOf, Path } from "../../../../lib/field/path.js";
import { formatFloatShortestG as goFloat, goQuote } from "../../../../lib/go/strconv.js";

const ctx = { source: { kind: "crd" as const, policy: "widgets.demo.tollgate.dev" } };

describe("field error bodies (apimachinery 1.36 wording)", () => {
  it.each([
    {
      name: "invalid int",
      err: invalid("spec.replicas", 11, "spec.replicas in body should be less than or equal to 10", ctx),
      message: "Invalid value: 11: spec.replicas in body should be less than or equal to 10",
    },
    { name: "required", err: required("spec", "", ctx), message: "Required value" },
    {
      name: "required with detail",
      err: required("metadata.name", "name or generateName is required", ctx),
      message: "Required value: name or generateName is required",
    },
    {
      name: "not supported",
      err: notSupported("spec.color", "x", ["a", "b"], ctx),
      message: 'Unsupported value: "x": supported values: "a", "b"',
    },
    { name: "too long", err: tooLong("spec.name", 5, ctx), message: "Too long: may not be more than 5 bytes" },
    { name: "too long singular", err: tooLong("spec.name", 1, ctx), message: "Too long: may not be more than 1 byte" },
    { name: "too many", err: tooMany("spec.hosts", 4, 3, ctx), message: "Too many: 4: must have at most 3 items" },
    {
      name: "duplicate object",
      err: duplicate("spec.ports[1]", { name: "http" }, ctx),
      message: 'Duplicate value: {"name":"http"}',
    },
    {
      name: "type invalid",
      err: typeInvalid("spec.x", "string", 'spec.x in body must be of type integer: "string"', ctx),
      message: 'Invalid value: "string": spec.x in body must be of type integer: "string"',
    },
    {
      name: "null value",
      err: invalid(null, null, "some validation rules were not checked", ctx),
      message: "Invalid value: null: some validation rules were not checked",
    },
  ])("$name", ({ err, message }) => {
    expect(err.message).toBe(message);
  });

  it("prints <nil> for the nil path", () => {
    expect(invalid(null, "", "x", ctx).field).toBe("<nil>");
  });
});

describe("value rendering", () => {
  it.each([
    { value: 11, text: "11" },
    { value: 2.5, text: "2.5" },
    { value: 1e6 + 0.5, text: "1.0000005e+06" },
    { value: 0.00001, text: "1e-05" },
    { value: true, text: "true" },
    { value: 'a"b', text: '"a\\"b"' },
    { value: 9007199254740993n, text: "9007199254740993" },
    { value: { b: 1, a: "<x>" }, text: '{"a":"\\u003cx\\u003e","b":1}' },
    { value: [1, "a"], text: '[1,"a"]' },
    { value: null, text: "null" },
  ])("$text", ({ value, text }) => {
    expect(formatValue(value)).toBe(text);
  });

  it("formats floats like Go %v", () => {
    expect(goFloat(100000)).toBe("100000");
    expect(goFloat(1234567.5)).toBe("1.2345675e+06");
    expect(goFloat(-0.5)).toBe("-0.5");
  });

  it("quotes like Go %q", () => {
    expect(goQuote("tab\there")).toBe('"tab\\there"');
    expect(goQuote("é")).toBe('"é"');
    expect(goQuote("\u0001")).toBe('"\\x01"');
  });

  it("prints a lone surrogate as Go prints the U+FFFD its JSON decoder made of it: unescaped", () => {
    // Go: json.Unmarshal turns "\ud800" into U+FFFD, a printable rune that strconv.Quote keeps.
    expect(formatValue("a\ud800b")).toBe('"a\ufffdb"');
  });
});

describe("paths", () => {
  it("renders children, indexes and keys", () => {
    const p = keyOf(indexOf(childOf(Path.of("spec"), "ports"), 3), "app.kubernetes.io/name");
    expect(p.toString()).toBe("spec.ports[3][app.kubernetes.io/name]");
  });
});

describe("aggregate message", () => {
  it("uses one cause without brackets and collapses identical entries", () => {
    const e = invalid("spec.x", 1, "bad", ctx);
    expect(aggregateMessage("Widget", "demo.tollgate.dev", "w", [e])).toBe(
      'Widget.demo.tollgate.dev "w" is invalid: spec.x: Invalid value: 1: bad',
    );
    const f = required("spec.y", "", ctx);
    expect(aggregateMessage("Widget", "demo.tollgate.dev", "w", [e, f, e])).toBe(
      'Widget.demo.tollgate.dev "w" is invalid: [spec.x: Invalid value: 1: bad, spec.y: Required value]',
    );
    expect(aggregateMessage("Pod", "", "p", [f])).toBe('Pod "p" is invalid: spec.y: Required value');
  });
});
