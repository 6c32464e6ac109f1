/**
 * The row of a "validate one object" case: the object's JSON text decoded and validated (the figure), next to the
 * JSON.parse + JSON.stringify round trip of the same text (the baseline), with the validation of the already
 * decoded object alone in a note. Used by the declarative and KubeVirt cases.
 */
import { parseDocuments } from "#lib";
import type { BenchRow } from "./bench-case.js";
import { measureSide } from "./measure.js";

/** `validate` gets a freshly decoded object each time; `describe` says what the case checks (first note). */
export function objectRow(
  name: string,
  text: string,
  validate: (object: Record<string, unknown>) => unknown,
  describe: string,
): BenchRow {
  const decode = (t: string) => parseDocuments(t)[0]!.object as Record<string, unknown>;
  const parsed = decode(text);
  const t = measureSide({
    tollgate: () => validate(decode(text)),
    validateOnly: () => validate(parsed),
    roundTrip: () => JSON.stringify(JSON.parse(text)),
  });
  return {
    name,
    unit: "µs",
    value: t.tollgate!.median,
    min: t.tollgate!.min,
    max: t.tollgate!.max,
    baseline: { label: "JSON.parse+stringify", value: t.roundTrip!.median },
    notes: [`${describe}; validate alone (decoded object) ${t.validateOnly!.median.toFixed(2)} µs`],
    data: { validateOnlyUs: t.validateOnly!.median, bytes: text.length },
  };
}
