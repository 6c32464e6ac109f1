import { describe, expect, it } from "vitest";
import { badRequestStatus, errorStatus, invalidStatus, successStatus } from "../../../../lib/field/status.js";

describe("metav1.Status builders", () => {
  it("writes the members in the API server's order, as JSON shows them", () => {
    expect(JSON.stringify(successStatus())).toBe(
      '{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Success","code":200}',
    );
    expect(JSON.stringify(badRequestStatus("bad"))).toBe(
      '{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"bad","reason":"BadRequest","code":400}',
    );
  });

  it.each([
    {
      name: "a named object of a group, two causes (not de-duplicated)",
      group: "demo.tollgate.dev",
      kind: "Widget",
      objectName: "w",
      errors: [
        { type: "FieldValueRequired", field: "spec.a", message: "Required value" },
        { type: "FieldValueRequired", field: "spec.a", message: "Required value" },
      ],
      want: {
        message: 'Widget.demo.tollgate.dev "w" is invalid: spec.a: Required value',
        details: {
          name: "w",
          group: "demo.tollgate.dev",
          kind: "Widget",
          causes: [
            { reason: "FieldValueRequired", message: "Required value", field: "spec.a" },
            { reason: "FieldValueRequired", message: "Required value", field: "spec.a" },
          ],
        },
      },
    },
    {
      name: "the core group and no name: both left out of details (omitempty)",
      group: "",
      kind: "ConfigMap",
      objectName: "",
      errors: [{ type: "FieldValueInvalid", field: "data", message: "Invalid value: 1: x" }],
      want: {
        message: 'ConfigMap "" is invalid: data: Invalid value: 1: x',
        details: {
          kind: "ConfigMap",
          causes: [{ reason: "FieldValueInvalid", message: "Invalid value: 1: x", field: "data" }],
        },
      },
    },
  ])("invalidStatus: $name", ({ group, kind, objectName, errors, want }) => {
    const status = invalidStatus({ group, kind }, objectName, errors);

    expect(status).toEqual({
      kind: "Status",
      apiVersion: "v1",
      metadata: {},
      status: "Failure",
      message: want.message,
      reason: "Invalid",
      details: want.details,
      code: 422,
    });
    expect(Object.keys(status)).toEqual([
      "kind",
      "apiVersion",
      "metadata",
      "status",
      "message",
      "reason",
      "details",
      "code",
    ]);
  });

  it("errorStatus carries the reason and code given", () => {
    expect(errorStatus("InternalError", 500, "boom")).toEqual({
      kind: "Status",
      apiVersion: "v1",
      metadata: {},
      status: "Failure",
      message: "boom",
      reason: "InternalError",
      code: 500,
    });
    expect(successStatus("no policy for v1/Pod")).toMatchObject({ status: "Success", message: "no policy for v1/Pod" });
  });
});
