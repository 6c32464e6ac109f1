/**
 * How kubectl shows the API server's answer (the `metav1.Status` objects behind it are lib's, lib/field/status.ts).
 *
 * An invalid object is printed as kubectl's `checkErr` prints a 422 `Invalid` StatusError
 * (k8s.io/kubectl pkg/cmd/util/helpers.go): the prefix `The <details.kind> "<details.name>" is invalid: `, then
 * through `MultilineError` either the single cause on the same line, or — for several causes — the prefix alone on
 * its line (with its trailing space, as `fmt.Fprintln` writes it) followed by one `* <field>: <message>` line per
 * cause. Causes are de-duplicated on `<field>: <message>` as `statusCausesToAggrError` does. Without causes the
 * line is `The <kind> "<name>" is invalid` with nothing after it.
 */
import { type FieldError, goQuote } from "#lib";

/** What an object is, read from its own apiVersion, kind and metadata. */
export interface ObjectIdentity {
  apiVersion: string;
  /** "" for the core group. */
  group: string;
  kind: string;
  namespace?: string;
  /** "" when the object has no metadata.name. */
  name: string;
}

/** kubectl's `<kind>.<group>/<name>` (`widget.demo.tollgate.dev/w`, `pod/p`), as `kubectl apply` prints it. */
export function objectRef(id: ObjectIdentity): string {
  const type = id.group === "" ? id.kind.toLowerCase() : `${id.kind.toLowerCase()}.${id.group}`;
  return id.name === "" ? `${type} (no name)` : `${type}/${id.name}`;
}

/** The text kubectl prints for a 422 `Invalid` answer, ending with a newline. */
export function invalidObjectText(
  id: ObjectIdentity,
  errors: readonly Pick<FieldError, "field" | "message">[],
): string {
  const prefix = `The ${id.kind} ${goQuote(id.name)} is invalid`;
  const lines: string[] = [];
  const seen = new Set<string>();
  for (const e of errors) {
    const line = `${e.field}: ${e.message}`;
    if (seen.has(line)) continue;
    seen.add(line);
    lines.push(line);
  }
  if (lines.length === 0) return `${prefix}\n`;
  if (lines.length === 1) return `${prefix}: ${lines[0]}\n`;
  return `${prefix}: \n${lines.map((l) => `* ${l}\n`).join("")}`;
}
