/**
 * Why each cel-spec test tollgate does not pass stays on the known-failures list: a maintained table of patterns and
 * the reason they stand for. Every reason says whether a Kubernetes rule can reach the difference:
 *
 * - `unreachable:` no rule kube-apiserver 1.36 accepts can express the test (Kubernetes' CEL environment lacks the
 *   feature, or its type checker refuses the expression before it runs);
 * - `Kubernetes behaviour:` Kubernetes 1.36 answers what tollgate answers, and the test expects another cel-go
 *   version or the spec's own choice;
 * - `reachable, not fixed:` a rule can hit it and tollgate differs from the API server: a bug, named here until
 *   it is fixed.
 *
 * The first matching row gives the reason; a failure no row matches is listed as `unclassified` (and counted as
 * reachable) so that the list never hides a new difference. update-known-failures.ts writes the reasons.
 */
import type { SpecTest } from "./textproto.js";

/** What a row is matched against. */
export interface FailureFacts {
  /** `<file>#<section>/<test>` */
  readonly key: string;
  readonly test: SpecTest;
  /** The reason derived from what differs (run-spec.ts), e.g. `compile error: ...`, `wrong value: ...`. */
  readonly derived: string;
  /** For a test that turns the type check off: the compile error of the same expression with the check, if any. */
  readonly checkedError: string | undefined;
}

interface Row {
  readonly key?: RegExp;
  readonly expr?: RegExp;
  readonly derived?: RegExp;
  readonly when?: (f: FailureFacts) => boolean;
  readonly reason: string;
}

const ROWS: readonly Row[] = [
  {
    when: (f) => f.test.container !== "",
    reason: "unreachable: the test resolves names in a container (cel.Container); Kubernetes' environments set none",
  },
  {
    derived: /List elements must have the same type|Map (key|value) uses wrong type/,
    reason:
      "unreachable: Kubernetes compiles with cel.HomogeneousAggregateLiterals, which refuses a list or map literal of mixed types before it runs; the test expects the spec's heterogeneous literals",
  },
  {
    when: (f) => f.test.disableCheck && f.checkedError !== undefined,
    reason:
      "unreachable: the test turns the type check off; Kubernetes always type-checks, and its checker refuses the expression (an undeclared name, or operands no overload takes)",
  },
  {
    key: /#qualified_identifier_resolution\/(qualified_ident|map_field_select|ident_with_longest_prefix_check|qualified_identifier_resolution_unchecked)$|#qualified\/self_eval_qualified_lookup$/,
    reason:
      "unreachable: the test declares variables with qualified names (a.b.c); Kubernetes declares only simple ones (self, oldSelf, object, request, ...)",
  },
  {
    derived: /(Unknown variable: |undeclared reference to ')net\b/,
    reason:
      "unreachable: cel-go's network extension (net.IP, net.CIDR) is not in Kubernetes' environment, which has its own ip and cidr libraries",
  },
  {
    expr: /\.\s*`/,
    reason:
      "unreachable: Kubernetes does not enable cel-go's identifier escape syntax (backtick-quoted names); CRD rules escape property names as __dot__, __dash__, __slash__",
  },
  {
    derived: /IPv4-mapped IPv6 address .* is not allowed/,
    reason:
      "Kubernetes behaviour: Kubernetes' ip() refuses IPv4-mapped IPv6 addresses (apiserver pkg/cel/library/ip.go)",
  },
  {
    expr: /\.format\(/,
    reason:
      "Kubernetes behaviour: Kubernetes runs strings extension v2, whose format() is cel-go's locale formatter (ext/formatting.go: %f and %e only for doubles, x/text's scientific notation, NaN quoted in lists); the test is for the version 4 formatter",
  },
  {
    expr: /getMilliseconds/,
    derived: /wrong value/,
    reason:
      "Kubernetes behaviour: cel-go v0.26 (Kubernetes 1.36) returns a duration's total milliseconds (time.Duration.Milliseconds)",
  },
  {
    expr: /(indexOf|lastIndexOf)\('a', 30\)/,
    reason: "Kubernetes behaviour: cel-go v0.26 (Kubernetes 1.36) answers -1 for an offset past the end of the string",
  },
  {
    key: /\/map_value_repeat_key$/,
    reason:
      "Kubernetes behaviour: cel-go v0.26 (Kubernetes 1.36) keeps the last of repeated map keys (interpreter evalMap), as tollgate does; the spec asks for an error",
  },
  {
    key: /\/map_key_null$/,
    reason:
      "reachable, not fixed: a map literal with a null key: cel-go fails (unsupported key type), the engine accepts it",
  },
  {
    derived: /Cannot index type 'undefined'/,
    reason:
      "reachable, not fixed: optional selection or index on an empty map literal or optional.none(): the engine's checker leaves their element type unbound",
  },
  {
    key: /optionals\.textproto#optionals\/type$/,
    reason: "reachable, not fixed: type() of an optional value",
  },
];

/** The reason a failing test stays on the list (see the module comment). */
export function classify(f: FailureFacts): string {
  for (const row of ROWS) {
    if (row.key !== undefined && !row.key.test(f.key)) continue;
    if (row.expr !== undefined && !row.expr.test(f.test.expr)) continue;
    if (row.derived !== undefined && !row.derived.test(f.derived)) continue;
    if (row.when !== undefined && !row.when(f)) continue;
    return row.reason;
  }
  return `unclassified (reachable until shown otherwise): ${f.derived}`;
}
