/**
 * Which cel-spec tests lib/cel (run-spec.ts) is expected to run. Skipped tests are counted
 * as skipped, never as passing. The first rule that matches gives the reason:
 *
 * 1. Files about protobuf messages: proto2, proto3, proto2_ext (TestAllTypes, extensions), wrappers, dynamic
 *    (wrapper types, Struct/Value/ListValue, Any). tollgate evaluates CEL over JSON-shaped objects, with no
 *    protobuf message types.
 * 2. Files about extensions Kubernetes 1.36 does not offer (spec/k8s-cel-semantics.md §9): math_ext,
 *    encoders_ext (base64), bindings_ext (`cel.bind`), block_ext (`cel.block`, an optimizer extension); and the
 *    strings extension v3 section `string_ext#reverse`. unknowns (partial evaluation) is not a tollgate feature.
 * 3. `check_only` tests: they check the deduced type only, which the adapter does not expose.
 *    (`typed_result` tests that carry a result are run; only the value is compared.)
 * 4. Tests with `disable_macros` (no such adapter option), expecting unknown sets, declaring custom functions, binding error/unknown values, or declaring
 *    variables of a type the adapter cannot declare (messages other than Timestamp/Duration, wrappers, Any,
 *    abstract types).
 * 5. Tests that use protobuf messages or enums: a container that is a protobuf package (`cel.expr.conformance.*`,
 *    `google.protobuf`), an expression naming a test message or a `google.protobuf` type other than Timestamp and
 *    Duration, or a binding or expected value holding a message or an enum.
 *
 * Everything else runs, including the sections whose features tollgate's CEL lacks (containers,
 * heterogeneous literals, two-variable comprehensions, …): those are listed in known-failures.yaml with reasons.
 */
import type { SpecTest } from "./textproto.js";
import { hasProtoValue, toDeclaration } from "./values.js";

/** Whole files that are out of scope, by file name. */
export const SKIPPED_FILES: Readonly<Record<string, string>> = Object.freeze({
  "proto2.textproto": "protobuf messages (proto2 TestAllTypes)",
  "proto3.textproto": "protobuf messages (proto3 TestAllTypes)",
  "proto2_ext.textproto": "protobuf messages (proto2 extensions)",
  "wrappers.textproto": "protobuf messages (wrapper and well-known types)",
  "dynamic.textproto": "protobuf messages (wrappers, Struct/Value/ListValue, Any)",
  "math_ext.textproto": "extension not in Kubernetes 1.36 (math)",
  "encoders_ext.textproto": "extension not in Kubernetes 1.36 (encoders/base64)",
  "bindings_ext.textproto": "extension not in Kubernetes 1.36 (cel.bind)",
  "block_ext.textproto": "extension not in Kubernetes 1.36 (cel.block)",
  "unknowns.textproto": "unknown sets (partial evaluation)",
});

/** Whole sections that are out of scope, keyed `<file>#<section>`. */
export const SKIPPED_SECTIONS: Readonly<Record<string, string>> = Object.freeze({
  "string_ext.textproto#reverse": "extension not in Kubernetes 1.36 (strings v3 reverse)",
});

const PROTO_CONTAINER = /^(cel\.expr\.conformance(\.|$)|google\.protobuf$)/;
const PROTO_NAME =
  /\b(TestAllTypes|NestedTestAllTypes|TestRequired|GlobalEnum|NestedEnum|NestedMessage)\b|\bgoogle\.protobuf\.(?!Timestamp\b|Duration\b)\w+|\bcel\.expr\.conformance\b/;

/** The reason a test is skipped, or undefined when it runs. */
export function skipReason(file: string, section: string, test: SpecTest): string | undefined {
  const byFile = SKIPPED_FILES[file];
  if (byFile !== undefined) return byFile;
  const bySection = SKIPPED_SECTIONS[`${file}#${section}`];
  if (bySection !== undefined) return bySection;
  if (test.checkOnly) return "check_only (deduced type only)";
  if (test.disableMacros) return "disable_macros (no such adapter option)";
  if (test.expect.kind === "unknown") return "unknown sets (partial evaluation)";
  if (test.expect.kind === "typedResult" && test.expect.value === undefined) return "check_only (deduced type only)";
  for (const d of test.typeEnv) {
    if (d.kind === "function") return "declares custom functions";
    if (toDeclaration(d.type) === undefined) return `protobuf messages (declares ${d.name} of type ${d.type.kind})`;
  }
  for (const [name, b] of test.bindings) {
    if (b.kind !== "value") return `binding ${name} is an ${b.kind} value`;
    if (hasProtoValue(b.value)) return "protobuf messages (binding)";
  }
  if (PROTO_CONTAINER.test(test.container)) return "protobuf messages (container is a protobuf package)";
  if (PROTO_NAME.test(test.expr)) return "protobuf messages (named in the expression)";
  const expected =
    test.expect.kind === "value"
      ? test.expect.value
      : test.expect.kind === "typedResult"
        ? test.expect.value
        : undefined;
  if (expected !== undefined && hasProtoValue(expected)) return "protobuf messages (expected value)";
  return undefined;
}
