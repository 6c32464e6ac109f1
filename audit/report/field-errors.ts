/**
 * fielderrors.ndjson: for each object, the `status.fieldErrors` of ../shared/spec/field-errors-in-status-convention.txt
 * as an RFC 6902 JSON patch a controller can apply to the object's status subresource. One line per covered object
 * with error-level findings (violations, template annotation failures), and one per valid object that still carries
 * `status.fieldErrors` (the patch removes them). Entries carry `type`, `field`, `detail` (the API server's message)
 * and `origin` (`tollgate/<family>/<policy>`), as `ErrorDetails` in the convention.
 */
import type { Finding, ObjectRecord } from "../model.js";
import { sharedStream } from "./shared-pass.js";
import type { ReportWriter } from "./types.js";

function isError(f: Finding): boolean {
  return f.severity === "violation" || f.severity === "template-annotation-failure";
}

const j = JSON.stringify;

/** `,"key":value` as `JSON.stringify` writes a member, or nothing for an absent value (which it leaves out). */
function member(key: string, value: string | undefined): string {
  return value === undefined ? "" : `,${j(key)}:${j(value)}`;
}

/**
 * The lines, rendered in the shared pass as the file is written, each as `JSON.stringify` writes the line's object (apiVersion, kind,
 * namespace, name, uid, subresource, patch), written straight from the record: building the objects and
 * stringifying them took most of the file's time on a large run.
 */
const fieldErrorLines = sharedStream((pass) => {
  const lines = pass.liveText();
  return {
    object(o: ObjectRecord, findings: readonly Finding[]) {
      if (o.object === undefined || (o.outcome !== "invalid" && o.outcome !== "valid")) return;
      const patch = patchOf(o, findings.filter(isError));
      if (patch === undefined) return;
      const r = o.object;
      lines.append(
        `{"apiVersion":${j(r.apiVersion)},"kind":${j(r.kind)}${member("namespace", r.namespace)}` +
          `${member("name", r.name)}${member("uid", r.uid)},"subresource":"status","patch":${patch}}\n`,
      );
    },
    early: { lines },
    result: () => ({ lines }),
  };
});

export const fieldErrorsWriter: ReportWriter = {
  name: "fielderrors",
  render(run) {
    fieldErrorLines.want(run);
    async function* chunks(): AsyncGenerator<string | Uint8Array> {
      yield* (await fieldErrorLines(run)).lines.chunks();
    }
    return [{ name: "fielderrors.ndjson", chunks, contentType: "application/x-ndjson" }];
  },
};

/** The patch's JSON text (RFC 6902), or undefined when the object needs none. */
function patchOf(o: ObjectRecord, found: Finding[]): string | undefined {
  if (found.length === 0) {
    return o.hasFieldErrors === true ? '[{"op":"remove","path":"/status/fieldErrors"}]' : undefined;
  }
  const value = found.map((f) => {
    const field = f.field !== undefined && f.field !== "<nil>" ? `,"field":${j(f.field)}` : "";
    const origin = `tollgate/${f.rule.family}${f.rule.policy === undefined ? "" : `/${f.rule.policy}`}`;
    return `{"type":${j(f.type ?? "FieldValueInvalid")}${field}${member("detail", f.message)},"origin":${j(origin)}}`;
  });
  // "add" on an existing member replaces it (RFC 6902 4.1); without a status, the status is added whole.
  return o.hasStatus === true
    ? `[{"op":"add","path":"/status/fieldErrors","value":[${value.join(",")}]}]`
    : `[{"op":"add","path":"/status","value":{"fieldErrors":[${value.join(",")}]}}]`;
}
