/**
 * Property-name escaping of Kubernetes CEL (apiserver pkg/cel/escaping.go): only names matching
 * `[a-zA-Z_.\-/][a-zA-Z0-9_.\-/]*` are accessible; `__` → `__underscores__`, `.` → `__dot__`, `-` → `__dash__`,
 * `/` → `__slash__`; reserved words → `__<word>__`. See spec/k8s-cel-semantics.md §4 "Property name escaping".
 */

const RESERVED = new Set([
  "true",
  "false",
  "null",
  "in",
  "as",
  "break",
  "const",
  "continue",
  "else",
  "for",
  "function",
  "if",
  "import",
  "let",
  "loop",
  "package",
  "namespace",
  "return",
  "var",
  "void",
  "while",
]);

/** Reserved words that compatibility version 1.31+ also accepts bare after a dot (`self.namespace`). */
const BARE_ALLOWED = new Set([...RESERVED].filter((w) => w !== "true" && w !== "false" && w !== "null" && w !== "in"));

function isFirst(c: string): boolean {
  return /[a-zA-Z_.\-/]/.test(c);
}

/** The escaped CEL names of a property, or [] when the property is not accessible. */
export function escapedNames(name: string): string[] {
  if (name.length === 0 || !isFirst(name[0]!)) return [];
  if (!/^[a-zA-Z0-9_.\-/]*$/.test(name)) return [];
  if (RESERVED.has(name)) return BARE_ALLOWED.has(name) ? [`__${name}__`, name] : [`__${name}__`];
  let out = "";
  for (let i = 0; i < name.length; i++) {
    const c = name[i]!;
    if (c === "_" && name[i + 1] === "_") {
      out += "__underscores__";
      i++;
    } else if (c === ".") out += "__dot__";
    else if (c === "-") out += "__dash__";
    else if (c === "/") out += "__slash__";
    else out += c;
  }
  return [out];
}
