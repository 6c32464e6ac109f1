import { describe, expect, it } from "vitest";
import { labelsOf, parseLabelSelector } from "../../../../lib/admission-policy/label-selector.js";

function selector(spec: Parameters<typeof parseLabelSelector>[0]) {
  const r = parseLabelSelector(spec);
  if (r.kind === "error") throw new Error(r.message);
  return r.selector;
}

describe("label selectors (metav1.LabelSelectorAsSelector)", () => {
  it("an empty selector selects everything", () => {
    const s = selector({ matchLabels: {}, matchExpressions: [] });
    expect(s.empty).toBe(true);
    expect(s.matches({})).toBe(true);
  });

  it.each<{ name: string; labels: Record<string, string>; want: boolean }>([
    { name: "matchLabels", labels: { app: "web" }, want: true },
    { name: "matchLabels, other value", labels: { app: "db" }, want: false },
    { name: "matchLabels, absent", labels: {}, want: false },
  ])("$name", ({ labels, want }) => {
    expect(selector({ matchLabels: { app: "web" }, matchExpressions: [] }).matches(labels)).toBe(want);
  });

  it.each<{ operator: string; values: string[]; labels: Record<string, string>; want: boolean }>([
    { operator: "In", values: ["a", "b"], labels: { k: "b" }, want: true },
    { operator: "In", values: ["a"], labels: {}, want: false },
    { operator: "NotIn", values: ["a"], labels: { k: "b" }, want: true },
    { operator: "NotIn", values: ["a"], labels: {}, want: true },
    { operator: "NotIn", values: ["a"], labels: { k: "a" }, want: false },
    { operator: "Exists", values: [], labels: { k: "" }, want: true },
    { operator: "Exists", values: [], labels: {}, want: false },
    { operator: "DoesNotExist", values: [], labels: {}, want: true },
    { operator: "DoesNotExist", values: [], labels: { k: "x" }, want: false },
  ])("$operator $values on $labels: $want", ({ operator, values, labels, want }) => {
    const s = selector({ matchLabels: {}, matchExpressions: [{ key: "k", operator, values }] });
    expect(s.matches(labels)).toBe(want);
  });

  it.each([
    { operator: "Equals", values: ["a"], message: '"Equals" is not a valid label selector operator' },
    {
      operator: "In",
      values: [],
      message: "values: Invalid value: []: for 'in', 'notin' operators, values set can't be empty",
    },
    {
      operator: "Exists",
      values: ["a"],
      message: 'values: Invalid value: ["a"]: values set must be empty for exists and does not exist',
    },
  ])("refuses $operator with $values: $message", ({ operator, values, message }) => {
    expect(parseLabelSelector({ matchLabels: {}, matchExpressions: [{ key: "k", operator, values }] })).toEqual({
      kind: "error",
      message,
    });
  });

  it("refuses an invalid key with the name validation's text", () => {
    const r = parseLabelSelector({ matchLabels: { "a b": "x" }, matchExpressions: [] });
    expect(r.kind).toBe("error");
    expect(r.kind === "error" && r.message.startsWith('key: Invalid value: "a b": name part must consist of')).toBe(
      true,
    );
  });

  it("reads labels as the unstructured accessor: none when a value is not a string", () => {
    expect(labelsOf({ metadata: { labels: { a: "1", b: "2" } } })).toEqual({ a: "1", b: "2" });
    expect(labelsOf({ metadata: { labels: { a: "1", b: 2 } } })).toEqual({});
    expect(labelsOf({ metadata: {} })).toEqual({});
    expect(labelsOf(null)).toEqual({});
  });
});
