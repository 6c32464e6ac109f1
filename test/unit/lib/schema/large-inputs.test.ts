/**
 * Cheap paths for large inputs: a huge enum is checked and reported without work proportional to the enum times
 * its message, and an object with hundreds of thousands of errors is reported with the first 100 and a count.
 */
import { describe, expect, it } from "vitest";
import { MAX_CAUSES } from "../../../../lib/field/bounds.js";
import { loadBundle } from "../../../../lib/index.js";
import { bigCrdText as crdText } from "../../../helpers/big-crd.js";

const object = (spec: unknown) => ({
  apiVersion: "b.tollgate.dev/v1",
  kind: "Big",
  metadata: { name: "x", namespace: "d" },
  spec,
});

describe("large inputs", () => {
  it("checks a 100,000-value root enum with a bounded message listing the first values", async () => {
    const values = Array.from({ length: 100_000 }, (_, i) => ({ spec: { n: `value-${i}` } }));
    const schema = {
      type: "object",
      enum: values,
      properties: { spec: { type: "object", properties: { n: { type: "string" } } } },
    };
    const set = await loadBundle([{ path: "crd.json", content: crdText(schema) }]);
    const v = set.validate({ operation: "CREATE", object: object({ n: "nope" }) });
    expect(v.errors).toHaveLength(1);
    const message = v.errors[0]!.message;
    expect(message).toMatch(
      /^Unsupported value: \{.*\}: supported values: "\{\\"spec\\":\{\\"n\\":\\"value-0\\"\}\}", /,
    );
    expect(v.errors[0]!.detail).toMatch(/\.\.\. \(\d+ more values\)$/);
    expect(message.length).toBeLessThan(5_000);
    // Its time is a goal of `npm run bench -- large/enum-100k` (no timings in tests).
  });

  it("reports 300,000 type errors as the first 100 and one counting the rest, typed to keep CEL gated", async () => {
    const schema = {
      type: "object",
      properties: {
        spec: {
          type: "object",
          properties: { items: { type: "array", items: { type: "object" } } },
          "x-kubernetes-validations": [{ rule: "false", message: "never reached" }],
        },
      },
    };
    const set = await loadBundle([{ path: "crd.json", content: crdText(schema) }]);
    const v = set.validate({
      operation: "CREATE",
      object: object({ items: Array.from({ length: 300_000 }, () => 1) }),
    });
    expect(v.errors).toHaveLength(MAX_CAUSES + 1);
    const last = v.errors.at(-1)!;
    expect(last.omitted).toBe(299_900 + 1);
    expect(last.message).toContain("299901 more errors not shown");
    expect(v.errors.some((e) => e.message.includes("never reached"))).toBe(false);
  });
});
