/**
 * The bounds every verdict passes (lib/policy/bounds.ts): lists capped with one error counting what was left out,
 * also when a family already cut its own list; credential values masked in every text.
 */
import { describe, expect, it } from "vitest";
import { MAX_CAUSES } from "../../../../lib/field/bounds.js";
import { type FieldError, invalid, omittedErrors } from "../../../../lib/field/error.js";
import { boundVerdict } from "../../../../lib/policy/bounds.js";
import type { Verdict } from "../../../../lib/policy/types.js";

const ctx = { source: { kind: "crd" as const, policy: "p" } };

function verdict(errors: FieldError[], warningTexts: string[] = []): Verdict {
  return {
    allowed: errors.length === 0,
    covered: true,
    errors,
    warnings: [],
    shadowed: [],
    ratcheted: [],
    audits: [],
    warningTexts,
    auditAnnotations: {},
  };
}

const many = (n: number, prefix: string) =>
  Array.from({ length: n }, (_, i) => invalid(`spec.${prefix}[${i}]`, i, "bad", ctx));

describe("boundVerdict", () => {
  it("keeps the first errors and counts the rest, also what a family's own cut left out", () => {
    const first = [...many(MAX_CAUSES, "a"), omittedErrors(500, MAX_CAUSES, ctx)];
    const v = boundVerdict(verdict([...first, ...many(30, "b")]), undefined);
    expect(v.errors).toHaveLength(MAX_CAUSES + 1);
    expect(v.errors.at(-1)).toMatchObject({ type: "FieldValueTooMany", omitted: 530 });
    expect(v.errors.at(-1)?.message).toBe(
      `Too many: 530 more errors not shown (tollgate returns at most ${MAX_CAUSES} per object)`,
    );
  });

  it("leaves a list within the bound as it is", () => {
    const errors = many(3, "a");
    expect(boundVerdict(verdict(errors), undefined).errors).toBe(errors);
  });

  it("masks the request's credential values in messages and warning texts", () => {
    const object = { spec: { dbPassword: "hunter2hunter2" } };
    const e = invalid("spec", null, "the password hunter2hunter2 is weak", ctx);
    const v = boundVerdict(verdict([e], ["spec: hunter2hunter2"]), { object, secret: false });
    expect(v.errors[0]?.message).toBe("Invalid value: null: the password <redacted> is weak");
    expect(v.warningTexts).toEqual(["spec: <redacted>"]);
  });
});
