/**
 * Webhook hot path, per perf-anchors.md §6 goal 1: each anchor object validated from its JSON text
 * (`parseDocuments` + `PolicySet.validate`, CREATE), next to the JSON.parse + JSON.stringify round trip of the same
 * text measured in the same run, and against the Go reference's full path (goal: ≤ 0.1× Go, i.e. ≥ 10× faster).
 */
import { join } from "node:path";
import type { PolicySet, Verdict } from "#lib";
import { loadBundle, parseDocuments } from "#lib";
import type { AnchorObject } from "./anchors.js";
import { ANCHOR_OBJECTS, findAnchorCase, GOAL_FRACTION } from "./anchors.js";
import { type BenchCase, type BenchContext, type BenchRow, goal } from "./bench-case.js";
import { measureSide } from "./measure.js";

/**
 * The valid HTTPRoute must also take ≤ 5× the JSON round trip of its text (perf-anchors §6 goal 1 asked for 10×,
 * tightened since to 5×).
 */
const ROUND_TRIP_GOAL: Record<string, number> = { "hr-valid": 5 };

const bundles = new Map<string, Promise<PolicySet>>();

function loadCrd(corpusRoot: string, crd: string): Promise<PolicySet> {
  const cached = bundles.get(crd);
  if (cached !== undefined) return cached;
  const p: Promise<PolicySet> = loadBundle(join(corpusRoot, "crds", crd));
  bundles.set(crd, p);
  return p;
}

/** The object of a one-document text (the webhook path: bounded decode, then validate). */
function decodeOne(text: string): unknown {
  const doc = parseDocuments(text)[0];
  if (doc === undefined || doc.error !== undefined) throw new Error(`anchor text does not decode: ${doc?.error}`);
  return doc.object;
}

function verdictSummary(v: Verdict): string {
  return v.allowed ? "allowed" : `rejected, ${v.errors.length} cause(s): ${v.errors.map((e) => e.field).join(", ")}`;
}

async function validateRow(ctx: BenchContext, anchor: AnchorObject): Promise<BenchRow> {
  const c = findAnchorCase(ctx.corpusRoot, anchor);
  const set = await loadCrd(ctx.corpusRoot, c.crd);
  const text = JSON.stringify(c.object);
  const parsed = decodeOne(text);

  const fromText = () => set.validate({ operation: "CREATE", object: decodeOne(text) });
  const check = fromText();
  const real = c.expect.real;
  const agrees = check.allowed === real.allowed && check.errors.length === real.causes.length;

  const t = measureSide({
    tollgate: fromText,
    validateOnly: () => set.validate({ operation: "CREATE", object: parsed }),
    roundTrip: () => JSON.stringify(JSON.parse(text)),
  });
  const tollgate = t.tollgate!;
  const roundTrip = t.roundTrip!;
  const validateOnly = t.validateOnly!;
  const ratio = tollgate.median / roundTrip.median;
  const roundTripGoal = ROUND_TRIP_GOAL[anchor.id];
  const notes = [
    `${text.length} bytes; validate alone (parsed object) ${validateOnly.median.toFixed(2)} µs; ` +
      `spread [${tollgate.min.toFixed(2)}–${tollgate.max.toFixed(2)}] µs over ${tollgate.samples} samples of ${tollgate.opsPerSample} ops`,
  ];
  if (!agrees) {
    notes.push(
      `verdict differs from Kubernetes 1.36.3: got ${verdictSummary(check)}, want ${real.allowed ? "allowed" : `rejected, ${real.causes.length} cause(s)`}`,
    );
  }
  return {
    name: `validate/${anchor.id}`,
    unit: "µs",
    value: tollgate.median,
    min: tollgate.min,
    max: tollgate.max,
    baseline: { label: "JSON.parse+stringify", value: roundTrip.median },
    reference: { label: "Go full path", value: anchor.goUs, goalFraction: GOAL_FRACTION.validate },
    ...(roundTripGoal !== undefined && { goals: [goal("÷ JSON round trip", ratio, "<=", roundTripGoal, "×")] }),
    notes,
    data: {
      bytes: text.length,
      validateOnlyUs: validateOnly.median,
      roundTripRatio: ratio,
      verdictAgrees: agrees,
      allowed: check.allowed,
      causes: check.errors.length,
    },
  };
}

export const validateCases: BenchCase[] = ANCHOR_OBJECTS.map((anchor) => ({
  name: `validate/${anchor.id}`,
  run: (ctx: BenchContext) => validateRow(ctx, anchor),
}));
