/**
 * fielderrors.ndjson: for each object, the `status.fieldErrors` of ../shared/spec/field-errors-in-status-convention.txt
 * as an RFC 6902 JSON patch a controller can apply to the object's status subresource. One line per covered object
 * with error-level findings (violations, template annotation failures), and one per valid object that still carries
 * `status.fieldErrors` (the patch removes them). Entries carry `type`, `field`, `detail` (the API server's message)
 * and `origin` (`tollgate/<family>/<policy>`), as `ErrorDetails` in the convention.
 */
import type { Finding, ObjectRecord } from "../model.js";
import { sharedProduct } from "./shared-pass.js";
import type { ReportWriter } from "./types.js";

function isError(f: Finding): boolean {
  return f.severity === "violation" || f.severity === "template-annotation-failure";
}

/** The lines, rendered in the shared pass. */
const fieldErrorLines = sharedProduct((pass) => {
  const lines = pass.textSpool();
  return {
    object(o: ObjectRecord, findings: readonly Finding[]) {
      if (o.object === undefined || (o.outcome !== "invalid" && o.outcome !== "valid")) return;
      const patch = patchOf(o, findings.filter(isError));
      if (patch === undefined) return;
      const line: Record<string, unknown> = { apiVersion: o.object.apiVersion, kind: o.object.kind };
      if (o.object.namespace !== undefined) line.namespace = o.object.namespace;
      line.name = o.object.name;
      if (o.object.uid !== undefined) line.uid = o.object.uid;
      line.subresource = "status";
      line.patch = patch;
      lines.append(`${JSON.stringify(line)}\n`);
    },
    result: () => lines,
  };
});

export const fieldErrorsWriter: ReportWriter = {
  name: "fielderrors",
  render(run) {
    fieldErrorLines.want(run);
    async function* chunks(): AsyncGenerator<Uint8Array> {
      yield* (await fieldErrorLines(run)).chunks();
    }
    return [{ name: "fielderrors.ndjson", chunks, contentType: "application/x-ndjson" }];
  },
};

function patchOf(o: ObjectRecord, found: Finding[]): Record<string, unknown>[] | undefined {
  if (found.length === 0) {
    return o.hasFieldErrors === true ? [{ op: "remove", path: "/status/fieldErrors" }] : undefined;
  }
  const value = found.map((f) => {
    const e: Record<string, string> = { type: f.type ?? "FieldValueInvalid" };
    if (f.field !== undefined && f.field !== "<nil>") e.field = f.field;
    e.detail = f.message;
    e.origin = `tollgate/${f.rule.family}${f.rule.policy === undefined ? "" : `/${f.rule.policy}`}`;
    return e;
  });
  // "add" on an existing member replaces it (RFC 6902 4.1); without a status, the status is added whole.
  return o.hasStatus === true
    ? [{ op: "add", path: "/status/fieldErrors", value }]
    : [{ op: "add", path: "/status", value: { fieldErrors: value } }];
}
