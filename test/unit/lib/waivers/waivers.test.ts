/**
 * lib/waivers: reading Waiver documents (strict, every problem naming its field), loading them from a bundle and
 * from waiver files beside it, matching them to field errors at a given time (globs, field parents, expiry; never
 * internal errors), and waiving an admission verdict (allowed only when every error is covered by an active waiver).
 */
import { describe, expect, it } from "vitest";
import type { FieldError } from "../../../../lib/field/error.js";
import {
  type BundleFile,
  compileWaivers,
  fieldCovers,
  loadBundle,
  parseRfc3339,
  type Verdict,
  type Waiver,
  waiverStanding,
  waiverTargetOf,
  waiveVerdict,
} from "../../../../lib/index.js";
import { parseWaiver } from "../../../../lib/waivers/waiver.js";

const NOW = Date.parse("2026-11-22T00:00:00Z");

function waiverDoc(spec: Record<string, unknown>, name = "w"): Record<string, unknown> {
  return { apiVersion: "tollgate.dev/v1alpha1", kind: "Waiver", metadata: { name }, spec };
}

const BASE = { policy: "widgets.example.com", reason: "why", owner: "team", expires: "2030-01-01T00:00:00Z" };

function waiver(spec: Record<string, unknown>, name = "w"): Waiver {
  const parsed = parseWaiver(waiverDoc({ ...BASE, ...spec }, name));
  if (parsed.waiver === undefined) throw new Error(parsed.errors.join("; "));
  return parsed.waiver;
}

function fieldError(over: Partial<FieldError> & { policy?: string; rule?: string } = {}): FieldError {
  const { policy, rule, ...rest } = over;
  const source: FieldError["source"] = { kind: "crd", policy: policy ?? "widgets.example.com" };
  if (rule !== undefined) source.rule = rule;
  return {
    type: "FieldValueInvalid",
    field: "spec.replicas",
    detail: "too many",
    message: "Invalid value: 11: too many",
    severity: "error",
    source,
    ...rest,
  };
}

const TARGET = { kind: "Widget", namespace: "shop", name: "checkout" };

describe("parseWaiver", () => {
  it("reads every field", () => {
    const w = waiver({
      rule: "maximum",
      kinds: ["Widget"],
      namespaces: ["shop"],
      names: ["checkout-*"],
      field: "spec.replicas",
      ticket: "T-1",
    });
    expect(w).toEqual({
      name: "w",
      policy: "widgets.example.com",
      rule: "maximum",
      kinds: ["Widget"],
      namespaces: ["shop"],
      names: ["checkout-*"],
      field: "spec.replicas",
      reason: "why",
      owner: "team",
      expires: "2030-01-01T00:00:00Z",
      expiresAt: Date.parse("2030-01-01T00:00:00Z"),
      ticket: "T-1",
    });
  });

  it.each([
    { name: "no expiry", spec: { ...BASE, expires: undefined }, errors: ["spec.expires: Required value"] },
    {
      name: "an expiry that is a date, not a date-time",
      spec: { ...BASE, expires: "2030-01-01" },
      errors: ['spec.expires: Invalid value: "2030-01-01": must be an RFC 3339 date-time (2026-12-31T00:00:00Z)'],
    },
    {
      name: "a day the month does not have",
      spec: { ...BASE, expires: "2026-02-30T00:00:00Z" },
      errors: [
        'spec.expires: Invalid value: "2026-02-30T00:00:00Z": must be an RFC 3339 date-time (2026-12-31T00:00:00Z)',
      ],
    },
    {
      name: "a misspelt selector",
      spec: { ...BASE, namespace: ["shop"] },
      errors: ["spec.namespace: Forbidden: unknown field"],
    },
    {
      name: "no owner and no reason",
      spec: { policy: "p", expires: BASE.expires },
      errors: ["spec.reason: Required value", "spec.owner: Required value"],
    },
    {
      name: "a selector that is not a list",
      spec: { ...BASE, kinds: "Widget" },
      errors: ["spec.kinds: Invalid value: must be a non-empty list of globs (leave it out to match any)"],
    },
    {
      name: "an empty glob",
      spec: { ...BASE, names: ["a", ""] },
      errors: ["spec.names[1]: Invalid value: must be a glob"],
    },
    {
      name: "a policy that is not a string",
      spec: { ...BASE, policy: 3 },
      errors: ["spec.policy: Invalid value: must be a string"],
    },
  ])("refuses $name, naming the field", ({ spec, errors }) => {
    expect(parseWaiver(waiverDoc(spec)).errors).toEqual(errors);
  });

  it("refuses a waiver without a name or spec", () => {
    expect(parseWaiver({ apiVersion: "tollgate.dev/v1alpha1", kind: "Waiver", metadata: {} }).errors).toEqual([
      "metadata.name: Required value: a waiver needs a name",
      "spec: Required value: policy, reason, owner and expires are required",
    ]);
  });

  it.each([
    ["2026-11-22T10:00:00Z", Date.parse("2026-11-22T10:00:00Z")],
    ["2026-11-22T10:00:00.5+02:00", Date.parse("2026-11-22T08:00:00.500Z")],
    ["2026-11-22t10:00:00z", Date.parse("2026-11-22T10:00:00Z")],
    ["2026-11-22 10:00:00Z", undefined],
    ["2026-13-01T00:00:00Z", undefined],
    ["2026-11-22T24:00:00Z", undefined],
    ["2026-11-22T10:00:00", undefined],
  ])("parseRfc3339(%j) is %j", (text, want) => {
    expect(parseRfc3339(text)).toBe(want);
  });
});

describe("matching", () => {
  it.each([
    { name: "policy alone", spec: {}, want: true },
    { name: "another policy", spec: { policy: "other" }, want: false },
    { name: "the rule", spec: { rule: "maximum" }, error: { rule: "maximum" }, want: true },
    { name: "another rule", spec: { rule: "minimum" }, error: { rule: "maximum" }, want: false },
    { name: "a rule the error has not", spec: { rule: "maximum" }, want: false },
    { name: "kind glob", spec: { kinds: ["Wid*"] }, want: true },
    { name: "kind glob that misses", spec: { kinds: ["Gadget", "Deploy*"] }, want: false },
    { name: "namespace brace glob", spec: { namespaces: ["{shop,ops}"] }, want: true },
    { name: "name glob ?", spec: { names: ["check?ut"] }, want: true },
    { name: "name glob that misses", spec: { names: ["frontend"] }, want: false },
    { name: "the field", spec: { field: "spec.replicas" }, want: true },
    { name: "a parent field", spec: { field: "spec" }, want: true },
    { name: "a field that only shares a prefix", spec: { field: "spec.rep" }, want: false },
    { name: "a child field", spec: { field: "spec.replicas.x" }, want: false },
  ])("$name: $want", ({ spec, error, want }) => {
    const m = compileWaivers([waiver(spec)], NOW).match(fieldError(error), TARGET);
    expect(m !== undefined).toBe(want);
  });

  it("a cluster-scoped object matches only waivers without namespaces", () => {
    const cluster = { kind: "Widget", name: "checkout" };
    expect(compileWaivers([waiver({ namespaces: ["*"] })], NOW).match(fieldError(), cluster)).toBeUndefined();
    expect(compileWaivers([waiver({})], NOW).match(fieldError(), cluster)?.waiver.name).toBe("w");
  });

  it("never waives internal errors or tollgate's own", () => {
    const matcher = compileWaivers([waiver({ policy: "bundle" })], NOW);
    expect(matcher.match(fieldError({ policy: "bundle", type: "InternalError" }), TARGET)).toBeUndefined();
    const own = fieldError({ policy: "bundle" });
    own.source = { kind: "tollgate", policy: "bundle" };
    expect(matcher.match(own, TARGET)).toBeUndefined();
  });

  it("an expired waiver matches as expired; an active one wins over it", () => {
    const expired = waiver({ expires: "2026-11-01T00:00:00Z" }, "old");
    const active = waiver({}, "new");
    expect(compileWaivers([expired], NOW).match(fieldError(), TARGET)).toEqual({ waiver: expired, expired: true });
    expect(compileWaivers([expired, active], NOW).match(fieldError(), TARGET)).toEqual({
      waiver: active,
      expired: false,
    });
    // Expiry is judged at the given time: the same waiver, a month earlier, is in force.
    expect(compileWaivers([expired], Date.parse("2026-10-01T00:00:00Z")).match(fieldError(), TARGET)?.expired).toBe(
      false,
    );
  });

  it("expiring at the very time is expired", () => {
    const w = waiver({ expires: "2026-11-22T00:00:00Z" });
    expect(compileWaivers([w], NOW).match(fieldError(), TARGET)?.expired).toBe(true);
  });

  it.each([
    { expires: "2026-11-21T00:00:00Z", want: "expired" },
    { expires: "2026-12-06T00:00:00Z", want: "expiring" },
    { expires: "2026-12-06T00:00:01Z", want: "active" },
  ])("a waiver expiring $expires is $want with a 14-day warning", ({ expires, want }) => {
    expect(waiverStanding(waiver({ expires }), NOW, 14)).toBe(want);
  });

  it("fieldCovers: the field and what lies under it", () => {
    expect(fieldCovers("spec.template", "spec.template.spec.containers[0].image")).toBe(true);
    expect(fieldCovers("spec.containers", "spec.containers[1]")).toBe(true);
    expect(fieldCovers("spec.containers", "spec.containersX")).toBe(false);
  });

  it("the target of a request: the request's namespace and name, else the object's", () => {
    const object = { apiVersion: "v1", kind: "Pod", metadata: { name: "p", namespace: "ns" } };
    expect(waiverTargetOf({ operation: "CREATE", object })).toEqual({ kind: "Pod", namespace: "ns", name: "p" });
    expect(waiverTargetOf({ operation: "DELETE", object: null, oldObject: object })).toEqual({
      kind: "Pod",
      namespace: "ns",
      name: "p",
    });
    expect(waiverTargetOf({ operation: "CREATE", object, namespace: "other", name: "q" })).toEqual({
      kind: "Pod",
      namespace: "other",
      name: "q",
    });
  });
});

function denied(errors: FieldError[]): Verdict {
  return {
    allowed: false,
    covered: true,
    errors,
    warnings: [],
    shadowed: [],
    ratcheted: [],
    audits: [],
    warningTexts: ["w1"],
    auditAnnotations: {},
    status: { code: 403, reason: "Forbidden", message: "no", family: "pod-security" },
  };
}

describe("waiveVerdict", () => {
  const other = fieldError({ field: "spec.host", message: "Invalid value: x" });

  it("allows a request denied only by waived errors, with a warning naming the waiver and its expiry", () => {
    const w = waiver({ field: "spec.replicas", owner: "payments" }, "checkout-replicas");
    const out = waiveVerdict(denied([fieldError()]), compileWaivers([w], NOW), TARGET);
    expect(out.verdict.allowed).toBe(true);
    expect(out.verdict.errors).toEqual([]);
    expect(out.verdict.status).toBeUndefined();
    expect(out.verdict.warningTexts).toEqual([
      "w1",
      "waived by checkout-replicas (owner payments, expires 2030-01-01T00:00:00Z): spec.replicas: Invalid value: 11: too many",
    ]);
    expect(out.waived.map((x) => x.waiver.name)).toEqual(["checkout-replicas"]);
  });

  it("keeps a denial one error of which no waiver covers, unchanged", () => {
    const verdict = denied([fieldError(), other]);
    const out = waiveVerdict(verdict, compileWaivers([waiver({ field: "spec.replicas" })], NOW), TARGET);
    expect(out.verdict).toBe(verdict);
    expect(out.waived).toEqual([]);
  });

  it("keeps a denial whose only waiver expired, and says the waiver expired", () => {
    const w = waiver({ expires: "2026-01-31T00:00:00Z" }, "old");
    const out = waiveVerdict(denied([fieldError()]), compileWaivers([w], NOW), TARGET);
    expect(out.verdict.allowed).toBe(false);
    expect(out.verdict.errors).toHaveLength(1);
    expect(out.verdict.warningTexts).toEqual([
      "w1",
      "waiver old expired at 2026-01-31T00:00:00Z and no longer waives spec.replicas: Invalid value: 11: too many",
    ]);
  });

  it("never waives a denial without field errors, nor an allowed verdict", () => {
    const matcher = compileWaivers([waiver({})], NOW);
    const noCauses = denied([]);
    expect(waiveVerdict(noCauses, matcher, TARGET).verdict).toBe(noCauses);
    const allowed = { ...denied([fieldError()]), allowed: true };
    expect(waiveVerdict(allowed, matcher, TARGET).verdict).toBe(allowed);
  });
});

const CRD = `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: { name: widgets.example.com }
spec:
  group: example.com
  scope: Namespaced
  names: { plural: widgets, singular: widget, kind: Widget, listKind: WidgetList }
  versions:
    - name: v1
      served: true
      storage: true
      schema:
        openAPIV3Schema:
          type: object
          properties:
            spec:
              type: object
              properties:
                replicas: { type: integer, maximum: 10 }
`;

const WAIVER_YAML = `apiVersion: tollgate.dev/v1alpha1
kind: Waiver
metadata: { name: checkout-replicas }
spec: { policy: widgets.example.com, reason: load test, owner: payments, expires: "2030-01-01T00:00:00Z" }
`;

describe("loading waivers", () => {
  it("takes the bundle's Waivers (never a policy failure of every kind) and those of waiver files", async () => {
    const files: BundleFile[] = [
      { path: "crd.yaml", content: CRD },
      { path: "waivers.yaml", content: WAIVER_YAML },
    ];
    const extra = WAIVER_YAML.replace("checkout-replicas", "from-file");
    const set = await loadBundle(files, { waivers: [{ path: "team/waivers.yaml", content: extra }] });
    expect(set.failures).toEqual([]);
    expect(set.notes).toEqual([]);
    expect(set.waivers.map((w) => [w.name, w.file, w.document])).toEqual([
      ["checkout-replicas", "waivers.yaml", 0],
      ["from-file", "team/waivers.yaml", 0],
    ]);
    // Waiver files are not part of the digest, as cluster state is not.
    expect(set.digest).toBe((await loadBundle(files)).digest);
  });

  it("reports a waiver that cannot be read, a duplicate name and a non-Waiver in a waiver file, tied to no kind", async () => {
    const bad = WAIVER_YAML.replace('expires: "2030-01-01T00:00:00Z"', 'expires: "soon"');
    const set = await loadBundle(
      [
        { path: "crd.yaml", content: CRD },
        { path: "waivers.yaml", content: `${WAIVER_YAML}---\n${bad}` },
      ],
      {
        waivers: [
          { path: "w/dup.yaml", content: WAIVER_YAML },
          { path: "w/cm.yaml", content: "apiVersion: v1\nkind: ConfigMap\nmetadata: { name: x }\n" },
        ],
      },
    );
    expect(set.failures.map((f) => [f.severity, f.file, f.document, f.kinds, f.message])).toEqual([
      [
        "error",
        "waivers.yaml",
        1,
        undefined,
        'Waiver checkout-replicas: spec.expires: Invalid value: "soon": must be an RFC 3339 date-time (2026-12-31T00:00:00Z)',
      ],
      [
        "error",
        "w/dup.yaml",
        0,
        undefined,
        "Waiver checkout-replicas: a second waiver of that name (the first is in waivers.yaml#0): ignored",
      ],
      [
        "error",
        "w/cm.yaml",
        0,
        undefined,
        "not a Waiver (v1 ConfigMap): a waivers location holds only tollgate.dev/v1alpha1 Waiver documents",
      ],
    ]);
    expect(set.waivers.map((w) => w.name)).toEqual(["checkout-replicas"]);
    // The broken waivers make no kind unusable: the Widget is still validated.
    const v = set.validate({
      operation: "CREATE",
      object: { apiVersion: "example.com/v1", kind: "Widget", metadata: { name: "a" }, spec: { replicas: 3 } },
    });
    expect(v.allowed).toBe(true);
  });
});
