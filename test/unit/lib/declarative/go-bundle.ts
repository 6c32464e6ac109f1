/**
 * In-memory Go bundles for the declarative unit tests: a module `example.com/t` whose package `api/v1` has
 * `+groupName=t.example.com`, a local TypeMeta, and the types given. Objects are `t.example.com/v1` objects.
 */
import { type BundleFile, loadBundle, type PolicyFailure, type PolicySet, type Verdict } from "#lib";

const TYPE_META = [
  "type TypeMeta struct {",
  '\tKind       string `json:"kind,omitempty"`',
  '\tAPIVersion string `json:"apiVersion,omitempty"`',
  "}",
  "",
].join("\n");

/** The files of a one-package API (plus `extra` files, path → content). `header` goes after the package clause. */
export function apiFiles(types: string, extra: Record<string, string> = {}, header = ""): BundleFile[] {
  return [
    { path: "go.mod", content: "module example.com/t\n\ngo 1.22\n" },
    { path: "api/v1/doc.go", content: "// +groupName=t.example.com\npackage v1\n" },
    { path: "api/v1/types.go", content: `package v1\n\n${header}${header ? "\n" : ""}${TYPE_META}\n${types}` },
    ...Object.entries(extra).map(([path, content]) => ({ path, content })),
  ];
}

export function loadApi(
  types: string,
  options: { extra?: Record<string, string>; gates?: Record<string, boolean>; header?: string } = {},
): Promise<PolicySet> {
  return loadBundle(apiFiles(types, options.extra ?? {}, options.header ?? ""), { featureGates: options.gates ?? {} });
}

/** A Kind struct with a `spec` of type `specType`, declared in Go. */
export function kind(name: string, specType: string, doc = ""): string {
  return `${doc}type ${name} struct {\n\tTypeMeta \`json:",inline"\`\n\tSpec ${specType} \`json:"spec"\`\n}\n`;
}

export function validate(
  set: PolicySet,
  kindName: string,
  spec: unknown,
  old?: unknown,
  extra: { subresource?: string; operation?: "CREATE" | "UPDATE" | "DELETE" } = {},
): Verdict {
  const object = { apiVersion: "t.example.com/v1", kind: kindName, spec };
  const operation = extra.operation ?? (old === undefined ? "CREATE" : "UPDATE");
  const req: Parameters<PolicySet["validate"]>[0] = { operation, object };
  if (old !== undefined) req.oldObject = { apiVersion: "t.example.com/v1", kind: kindName, spec: old };
  if (extra.subresource !== undefined) req.subresource = extra.subresource;
  return set.validate(req);
}

/** `<type> <field>: <detail>` of each error, sorted: compact to compare. */
export function brief(errors: Verdict["errors"]): string[] {
  return errors.map((e) => `${e.type} ${e.field}${e.origin ? ` (${e.origin})` : ""}: ${e.detail}`).sort();
}

/** The declarative failures of a set, as `<severity> <file> <path>: <message>`. */
export function failureTexts(failures: readonly PolicyFailure[]): string[] {
  return failures
    .filter((f) => f.family === "declarative")
    .map((f) => `${f.severity} ${f.file ?? "-"} ${f.path ?? "-"}: ${f.message}`);
}
