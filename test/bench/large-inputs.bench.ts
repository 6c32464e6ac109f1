/**
 * Cheap paths for big inputs, each against a baseline of the same bytes measured in the same run (timings are goals
 * here, never test assertions; the tests check the bounded outputs):
 *
 * - `large/request-2.67MiB`: the webhook handler answering a 2.67 MiB AdmissionReview whose object has 190,000
 *   failing list items (the probe's size; 6.7 s in the handler before the cheap paths), against JSON.parse +
 *   JSON.stringify of the same request text. Goal: at most 25× the round trip (the API server's own decode and
 *   validation of such a request are several round trips), and so well under a second.
 * - `large/enum-100k`: a 179-byte object against a CRD whose root `enum` has 100,000 values (7.9 s before, with a
 *   12.7 MB message), against JSON.stringify of the enum's values (the least a check of the value against every
 *   value can cost). Goal: at most 4× it: linear in the enum, not in the enum times its message.
 * - `large/crd-14MB`: loadBundle of a 14 MB CRD (a schema of 16,000 described properties; 6.1 s before), against
 *   JSON.parse + JSON.stringify of its text, and against loading the same CRD at half the size. Goals: at most 20×
 *   the round trip, and at most 2.5× the time of the half-size CRD (time proportional to the size).
 */
import type { FunctionLogger } from "../../functions/logger.js";
import { createRuntime } from "../../functions/runtime.js";
import { createHandler } from "../../functions/webhook.js";
import { loadBundle } from "../../lib/index.js";
import { FUZZ_BUNDLE } from "../fuzz/webhook-harness.js";
import { bigCrdText as crdText } from "../helpers/big-crd.js";
import { admissionReview, fakeContext, v2Event } from "../helpers/events.js";
import { type BenchCase, type BenchRow, goal } from "./bench-case.js";
import { alternate, alternatedRow, measureRepeated } from "./measure.js";

const MIB = 1024 * 1024;

function silentLogger(): FunctionLogger {
  const line = () => {};
  return { info: line, warn: line, error: line, addContext: line };
}

/** The probe's request: a Vault whose `items` all fail their maximum, `bytes` of JSON in all. */
export function largeReviewText(bytes: number): string {
  const review = (items: number) =>
    JSON.stringify(
      admissionReview({
        uid: "u-1",
        operation: "CREATE",
        object: {
          apiVersion: "fuzz.tollgate.dev/v1",
          kind: "Vault",
          metadata: { name: "v", namespace: "ns" },
          spec: { items: Array.from({ length: items }, () => ({ value: 101 })) },
        },
      }),
    );
  const per = review(2).length - review(1).length;
  return review(Math.floor((bytes - review(0).length) / per));
}

function roundTrip(text: string): number {
  return JSON.stringify(JSON.parse(text)).length;
}

async function requestRow(): Promise<BenchRow> {
  const text = largeReviewText(Math.round(2.67 * MIB));
  const runtime = createRuntime({}, { logger: silentLogger(), load: () => loadBundle(FUZZ_BUNDLE) });
  await runtime.policySet();
  const handler = createHandler(runtime);
  const event = v2Event({ body: text });
  const first = await handler(event, fakeContext());
  const allowed = (JSON.parse(first.body) as { response?: { allowed?: boolean } }).response?.allowed;
  if (first.statusCode !== 200 || allowed !== false) throw new Error(`unexpected answer ${first.statusCode}`);
  const t = await alternate(
    () => handler(event, fakeContext()),
    () => roundTrip(text),
    7,
  );
  return alternatedRow(
    "large/request-2.67MiB",
    t,
    "JSON.parse+stringify",
    ["handler ÷ JSON round trip", 25],
    (value, base) => ({
      note:
        `a ${(text.length / MIB).toFixed(2)} MiB review (190,000 failing items): the handler answers in ${value.toFixed(0)} ms, ` +
        `the JSON round trip of the request takes ${base.toFixed(0)} ms (median of 7)`,
      data: { bytes: text.length, handlerMs: value, roundTripMs: base },
    }),
  );
}

/** The CRD of a root enum of `count` values and the 179-byte object the probe sent. */
export function hugeEnum(count: number): { crd: string; values: unknown[]; object: Record<string, unknown> } {
  const values = Array.from({ length: count }, (_, i) => ({ spec: { n: `value-${i}` } }));
  const schema = {
    type: "object",
    enum: values,
    properties: { spec: { type: "object", properties: { n: { type: "string" } } } },
  };
  const object = {
    apiVersion: "b.tollgate.dev/v1",
    kind: "Big",
    metadata: { name: "an-object-of-about-179-bytes", namespace: "default" },
    spec: { n: "not-one-of-the-values-anywhere-in-the-enum" },
  };
  return { crd: crdText(schema), values, object };
}

async function enumRow(): Promise<BenchRow> {
  const { crd, values, object } = hugeEnum(100_000);
  const set = await loadBundle([{ path: "crd.json", content: crd }]);
  const validate = () => set.validate({ operation: "CREATE", object });
  if (validate().errors.length !== 1) throw new Error("the object should fail its enum once");
  const t = await alternate(validate, () => JSON.stringify(values).length, 9);
  return alternatedRow(
    "large/enum-100k",
    t,
    "JSON.stringify(enum)",
    ["validate ÷ stringify of the enum", 4],
    (value, base) => ({
      note:
        `a ${JSON.stringify(object).length}-byte object against a 100,000-value root enum: ${value.toFixed(1)} ms; ` +
        `JSON.stringify of the enum's values ${base.toFixed(1)} ms (median of 9)`,
      data: { objectBytes: JSON.stringify(object).length, validateMs: value, stringifyMs: base },
    }),
  );
}

/** A CRD of about `bytes` bytes: a spec of described string properties, as large generated CRDs are. */
export function largeCrd(bytes: number): string {
  const description = "A field of a large generated CRD, described at length as controller-gen copies Go comments. ";
  const field = {
    type: "object",
    description: description.repeat(4),
    properties: { name: { type: "string", maxLength: 253 }, count: { type: "integer", minimum: 0 } },
  };
  const make = (n: number) => {
    const properties: Record<string, unknown> = {};
    for (let i = 0; i < n; i++) properties[`field${i}`] = field;
    return crdText({ type: "object", properties: { spec: { type: "object", properties } } });
  };
  const per = make(2).length - make(1).length;
  return make(Math.floor(bytes / per));
}

async function crdRow(): Promise<BenchRow> {
  const full = largeCrd(14_000_000);
  const half = largeCrd(7_000_000);
  const limits = { documentBytes: 16 * MIB };
  const load = (text: string) => loadBundle([{ path: "crd.json", content: text }], { limits });
  const set = await load(full);
  if (set.failures.length > 0) throw new Error(`the CRD did not load: ${set.failures[0]!.message}`);
  const fullT = await measureRepeated(() => load(full), { minRuns: 5, maxRuns: 5 });
  const halfT = await measureRepeated(() => load(half), { minRuns: 5, maxRuns: 5 });
  const rt = await measureRepeated(async () => roundTrip(full), { minRuns: 5, maxRuns: 5 });
  const base = rt.median;
  return {
    name: "large/crd-14MB",
    unit: "ms",
    value: fullT.median,
    min: fullT.min,
    max: fullT.max,
    baseline: { label: "JSON.parse+stringify", value: base },
    goals: [
      goal("load ÷ JSON round trip", fullT.median / base, "<=", 20, "×"),
      goal("load of 14 MB ÷ load of 7 MB", fullT.median / halfT.median, "<=", 2.5, "×"),
    ],
    notes: [
      `a ${(full.length / 1e6).toFixed(1)} MB CRD loads in ${fullT.median.toFixed(0)} ms, a ${(half.length / 1e6).toFixed(1)} MB one ` +
        `in ${halfT.median.toFixed(0)} ms; the JSON round trip of the 14 MB text takes ${base.toFixed(0)} ms (medians)`,
    ],
    data: { bytes: full.length, loadMs: fullT.median, halfLoadMs: halfT.median, roundTripMs: base },
  };
}

export const largeInputCases: readonly BenchCase[] = [
  { name: "large/request-2.67MiB", run: requestRow },
  { name: "large/enum-100k", run: enumRow },
  { name: "large/crd-14MB", run: crdRow },
];
