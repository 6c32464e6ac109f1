/**
 * kubectl-validate's own test cases (`realworld/kubectl-validate/testcases/`), read as its
 * `pkg/cmd/validate_test.go` (TestValidationErrorsIndividually) reads them:
 *
 * - every `.yaml`/`.yml` file of `manifests/` is a case (`*.disabled` files are not);
 * - the file is cut into documents by apimachinery's `YAMLReader` (`utils.SplitYamlDocuments`);
 * - a document of only comments, blank lines and `---` expects `{"status": "Success"}`; any other document expects
 *   the JSON of its leading `#` comment lines, unmarshalled into a `metav1.Status`;
 * - the bundle is `crds/` (`--local-crds`); built-in kinds are validated against built-in schemas, which tollgate
 *   does not have.
 */
import { readdirSync, readFileSync } from "node:fs";
import { extname, join } from "node:path";

/** One document of a kubectl-validate manifest, with the Status the upstream test expects for it. */
export interface KubectlValidateDocument {
  /** Relative to `testcases/manifests/`. */
  file: string;
  /** 0-based, as YAMLReader returns the documents. */
  index: number;
  text: string;
  /** True for a document of only comments, blank lines and `---` (`utils.IsEmptyYamlDocument`). */
  empty: boolean;
  /** The expected `metav1.Status`, normalised by {@link asMetav1Status}. */
  expected: Metav1Status;
}

/** The fields of `metav1.Status` (TypeMeta aside), as Go's encoding/json fills the struct. */
export interface Metav1Status {
  metadata?: Record<string, unknown>;
  status?: string;
  message?: string;
  reason?: string;
  details?: {
    name?: string;
    group?: string;
    kind?: string;
    uid?: string;
    causes?: { reason?: string; message?: string; field?: string }[];
    retryAfterSeconds?: number;
  };
  code?: number;
}

/** Every document of every case file, in file order. */
export function readKubectlValidateDocuments(testcases: string): KubectlValidateDocument[] {
  const dir = join(testcases, "manifests");
  const out: KubectlValidateDocument[] = [];
  const files = readdirSync(dir)
    .filter((name) => [".yaml", ".yml"].includes(extname(name).toLowerCase()))
    .sort();
  if (files.length === 0) throw new Error(`Conformance corpus: no cases in ${dir}`);
  for (const file of files) {
    const documents = splitYamlDocuments(readFileSync(join(dir, file), "utf8"), file);
    for (const [index, text] of documents.entries()) {
      const empty = isEmptyYamlDocument(text);
      const expected = empty ? { status: "Success" } : asMetav1Status(leadingJson(text, `${file}#${index}`));
      out.push({ file, index, text, empty, expected });
    }
  }
  return out;
}

/**
 * apimachinery's `YAMLReader.Read` in a loop (k8s.io/apimachinery pkg/util/yaml/decoder.go): a line starting with
 * `---` ends a non-empty document and is dropped; with nothing buffered it starts the next document. Text after
 * `---` other than a comment is an error.
 */
export function splitYamlDocuments(text: string, where: string): string[] {
  const lines = text.split("\n");
  const documents: string[] = [];
  let buffer = "";
  for (const [i, line] of lines.entries()) {
    // The text after the last newline: EOF when empty, else a last line the reader still returns.
    if (i === lines.length - 1 && line === "") break;
    if (line.startsWith("---")) {
      const trimmed = line.slice(3).trim();
      if (trimmed !== "" && !trimmed.startsWith("#")) {
        throw new Error(`${where}: invalid Yaml document separator: ${trimmed}`);
      }
      if (buffer !== "") {
        documents.push(buffer);
        buffer = "";
        continue;
      }
    }
    buffer += `${line}\n`;
  }
  if (buffer !== "") documents.push(buffer);
  return documents;
}

/** kubectl-validate's `utils.IsEmptyYamlDocument`. */
export function isEmptyYamlDocument(text: string): boolean {
  return text.split("\n").every((raw) => {
    const line = raw.trim();
    return line === "" || line.startsWith("#") || line === "---";
  });
}

/** The leading comment of a document, its `#` removed, parsed as JSON (as the upstream test reads it). */
function leadingJson(text: string, where: string): unknown {
  const comment: string[] = [];
  for (const line of text.split("\n")) {
    if (comment.length === 0 && line.trim() === "") continue;
    if (!line.startsWith("#")) break;
    comment.push(line.slice(1));
  }
  try {
    return JSON.parse(comment.join("\n"));
  } catch (error) {
    throw new Error(`${where}: the leading comment is not a JSON Status: ${String(error)}`);
  }
}

/**
 * A Status as `json.Unmarshal` into `metav1.Status` leaves it: only the struct's fields, and fields with the zero
 * value left out (so `"message": ""` and no message compare equal, as the upstream test's `assert.Equal` of two
 * structs does). TypeMeta (`kind`, `apiVersion`) is not compared: kubectl-validate prints Statuses without it, the
 * API server with it.
 */
export function asMetav1Status(value: unknown): Metav1Status {
  const v = record(value);
  const out: Metav1Status = {};
  const metadata = record(v.metadata);
  const meta: Record<string, unknown> = {};
  for (const key of ["selfLink", "resourceVersion", "continue", "remainingItemCount"]) {
    if (nonZero(metadata[key])) meta[key] = metadata[key];
  }
  if (Object.keys(meta).length > 0) out.metadata = meta;
  for (const key of ["status", "message", "reason"] as const) {
    const text = v[key];
    if (typeof text === "string" && text !== "") out[key] = text;
  }
  if (typeof v.code === "number" && v.code !== 0) out.code = v.code;
  if (v.details !== undefined && v.details !== null) {
    const d = record(v.details);
    const details: NonNullable<Metav1Status["details"]> = {};
    for (const key of ["name", "group", "kind", "uid"] as const) {
      const text = d[key];
      if (typeof text === "string" && text !== "") details[key] = text;
    }
    if (Array.isArray(d.causes) && d.causes.length > 0) {
      details.causes = d.causes.map((c: unknown) => {
        const cause = record(c);
        const outCause: { reason?: string; message?: string; field?: string } = {};
        for (const key of ["reason", "message", "field"] as const) {
          const text = cause[key];
          if (typeof text === "string" && text !== "") outCause[key] = text;
        }
        return outCause;
      });
    }
    if (typeof d.retryAfterSeconds === "number" && d.retryAfterSeconds !== 0) {
      details.retryAfterSeconds = d.retryAfterSeconds;
    }
    // A non-nil *StatusDetails stays, even with every field zero.
    out.details = details;
  }
  return out;
}

function record(value: unknown): Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
}

function nonZero(value: unknown): boolean {
  return value !== undefined && value !== null && value !== "" && value !== 0;
}
