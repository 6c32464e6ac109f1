/**
 * The ten rules of research/cel-engines.md §3, evaluated through tollgate's CEL path (schema-typed lazy values,
 * Kubernetes rewrites, runtime cost metering: `evaluateCelRules` on a one-rule CRD version) next to the raw engine
 * (inputs pre-converted, no metering) in the same run. Goal (CEL issue): ≤ 2× the raw engine on every rule and
 * ≤ 1.5× as a geometric mean.
 */
import { Environment } from "@marcbachmann/cel-js";
import { compileCelRules } from "../../lib/cel/crd/compile.js";
import { evaluateCelRules } from "../../lib/cel/crd/evaluate.js";
import { type CompileIssue, compileSchema } from "../../lib/schema/structural.js";
import { type BenchCase, type BenchRow, goal } from "./bench-case.js";
import { measureSide } from "./measure.js";

interface RuleCase {
  id: string;
  rule: string;
  /** The schema of `self` (properties of the object the rule sits on). */
  properties: Record<string, unknown>;
  /** The JSON value of `self`. */
  self: Record<string, unknown>;
  /** Raw engine declaration of `self` and the pre-converted value. */
  rawType: string;
  rawSelf: unknown;
}

const containers = Array.from({ length: 5 }, (_, i) => ({
  name: `c${i}`,
  image: `registry/app:${i}`,
  ports: [{ containerPort: 8080 + i }],
}));
const items1000 = Array.from({ length: 1000 }, (_, i) => ({ name: `item-${i}`, port: 1000 + i }));
const set100a = Array.from({ length: 100 }, (_, i) => `a${i}`);
const set100b = Array.from({ length: 100 }, (_, i) => `b${i}`);

function toRaw(v: unknown): unknown {
  if (typeof v === "number" && Number.isInteger(v)) return BigInt(v);
  if (Array.isArray(v)) return v.map(toRaw);
  if (v !== null && typeof v === "object") return new Map(Object.entries(v).map(([k, x]) => [k, toRaw(x)]));
  return v;
}

const str = { type: "string", maxLength: 64 };
const int = { type: "integer" };

const CASES: RuleCase[] = [
  {
    id: "min-max",
    rule: "self.minReplicas <= self.replicas && self.replicas <= self.maxReplicas",
    properties: { minReplicas: int, replicas: int, maxReplicas: int },
    self: { minReplicas: 1, replicas: 3, maxReplicas: 5 },
    rawType: "map<string, int>",
    rawSelf: toRaw({ minReplicas: 1, replicas: 3, maxReplicas: 5 }),
  },
  {
    id: "in-map",
    rule: "'Available' in self.stateCounts",
    properties: { stateCounts: { type: "object", additionalProperties: int } },
    self: { stateCounts: { Available: 3, Pending: 1 } },
    rawType: "map<string, map<string, int>>",
    rawSelf: toRaw({ stateCounts: { Available: 3, Pending: 1 } }),
  },
  {
    id: "set-disjoint",
    rule: "self.set1.all(e, !(e in self.set2))",
    properties: {
      set1: { type: "array", items: str, maxItems: 100 },
      set2: { type: "array", items: str, maxItems: 100 },
    },
    self: { set1: set100a, set2: set100b },
    rawType: "map<string, list<string>>",
    rawSelf: toRaw({ set1: set100a, set2: set100b }),
  },
  {
    id: "map-sum",
    rule: "self.weights.map(x, x.weight).sum() == 100",
    properties: { weights: { type: "array", maxItems: 10, items: { type: "object", properties: { weight: int } } } },
    self: { weights: [{ weight: 50 }, { weight: 30 }, { weight: 20 }] },
    rawType: "map<string, list<map<string, int>>>",
    rawSelf: toRaw({ weights: [{ weight: 50 }, { weight: 30 }, { weight: 20 }] }),
  },
  {
    id: "matches",
    rule: "self.name.matches('^[a-z0-9]([-a-z0-9]*[a-z0-9])?$')",
    properties: { name: str },
    self: { name: "my-app-123" },
    rawType: "map<string, string>",
    rawSelf: toRaw({ name: "my-app-123" }),
  },
  {
    id: "startsWith",
    rule: "self.name.startsWith('kube')",
    properties: { name: str },
    self: { name: "kube-system" },
    rawType: "map<string, string>",
    rawSelf: toRaw({ name: "kube-system" }),
  },
  {
    id: "has-ternary",
    rule: "has(self.spec.foo) ? self.spec.foo.size() < 10 : true",
    properties: { spec: { type: "object", properties: { foo: str } } },
    self: { spec: { foo: "bar" } },
    rawType: "map<string, map<string, string>>",
    rawSelf: toRaw({ spec: { foo: "bar" } }),
  },
  {
    id: "all-1000",
    rule: "self.items.all(i, i.name.size() < 64 && i.port > 0 && i.port < 65536)",
    properties: {
      items: { type: "array", maxItems: 1000, items: { type: "object", properties: { name: str, port: int } } },
    },
    self: { items: items1000 },
    rawType: "map<string, list<map<string, dyn>>>",
    rawSelf: toRaw({ items: items1000 }),
  },
  {
    id: "containers",
    rule: "self.containers.all(c, c.ports.all(p, p.containerPort > 0))",
    properties: {
      containers: {
        type: "array",
        maxItems: 10,
        items: {
          type: "object",
          properties: {
            name: str,
            image: str,
            ports: { type: "array", maxItems: 4, items: { type: "object", properties: { containerPort: int } } },
          },
        },
      },
    },
    self: { containers },
    rawType: "map<string, list<map<string, dyn>>>",
    rawSelf: toRaw({ containers }),
  },
  {
    // Strings with declared bounds: a `string(int)` result has no size bound in the cost estimate (cel-go's checker gives
    // none), so concatenating such results is refused at compile time as over the cost budget.
    id: "string-concat",
    rule: "'replicas ' + self.replicas + ' of ' + self.maxReplicas != ''",
    properties: { replicas: { type: "string", maxLength: 10 }, maxReplicas: { type: "string", maxLength: 10 } },
    self: { replicas: "3", maxReplicas: "5" },
    rawType: "map<string, string>",
    rawSelf: toRaw({ replicas: "3", maxReplicas: "5" }),
  },
];

function adapterRunner(c: RuleCase): () => unknown {
  const issues: CompileIssue[] = [];
  const root = compileSchema(
    { type: "object", properties: c.properties, "x-kubernetes-validations": [{ rule: c.rule }] },
    issues,
  );
  const program = compileCelRules(root, issues);
  if (issues.length > 0) throw new Error(`${c.id}: ${issues.map((i) => i.message).join("; ")}`);
  const ctx = { source: { kind: "crd" as const, policy: "bench" } };
  return () => {
    const r = evaluateCelRules(program, root, c.self, undefined, ctx);
    if (r.errors.length > 0) throw new Error(`${c.id}: ${r.errors[0]!.message}`);
    return r;
  };
}

function rawRunner(c: RuleCase): () => unknown {
  const env = new Environment({ enableOptionalTypes: true });
  env.registerFunction("list<int>.sum(): int", (l: bigint[]) => l.reduce((a, b) => a + b, 0n));
  env.registerVariable("self", c.rawType);
  const program = env.parse(c.rule);
  const check = program.check();
  if (!check.valid) throw new Error(`${c.id} (raw): ${check.error?.message}`);
  return () => program({ self: c.rawSelf });
}

export const celRulesCases: readonly BenchCase[] = CASES.map((c) => ({
  name: `cel-rule/${c.id}`,
  async run(): Promise<BenchRow> {
    const t = measureSide({ adapter: adapterRunner(c), raw: rawRunner(c) });
    const adapter = t.adapter!;
    const raw = t.raw!;
    const ratio = adapter.median / raw.median;
    return {
      name: `cel-rule/${c.id}`,
      unit: "µs",
      value: adapter.median,
      min: adapter.min,
      max: adapter.max,
      baseline: { label: "raw engine", value: raw.median },
      goals: [goal("adapter ÷ raw engine", ratio, "<=", 2, "×")],
      notes: [c.rule],
      data: { ratio },
    };
  },
}));
