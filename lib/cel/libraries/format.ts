/**
 * The Kubernetes format library (apiserver pkg/cel/library/format.go, Kubernetes 1.31+): `format.<name>()`,
 * `format.named(name)`, `<format>.validate(s)`.
 */
import { constantCost, sizeOf, typedEqualityCost } from "../cost/operand.js";
import { byFactor, REGEX_LENGTH, STRING_TRAVERSAL } from "../cost/range.js";
import type { RuntimeCharge } from "../cost/runtime.js";
import { actualSize } from "../cost/value-size.js";
import { type EngineRegistrar, Optional } from "../engine.js";
import { NAMED_FORMATS, NamedFormat, namedFormat } from "../implementations/format.js";
import { type CelLibrary, libraryCall } from "./library.js";

const FORMAT_T = "kubernetes.NamedFormat";
/** apiserver `MaxNameFormatRegexSize`, `MaxFormatSize`. */
const MAX_NAME_FORMAT_REGEX_SIZE = 128;
const MAX_FORMAT_SIZE = 64;

/** The value of the `format` namespace constant. */
class FormatNamespace {}

function register(env: EngineRegistrar): void {
  env.registerType(FORMAT_T, { ctor: NamedFormat, fields: {} });
  env.registerType("k8s.FormatNamespace", { ctor: FormatNamespace, fields: {} });
  env.registerConstant("format", "k8s.FormatNamespace", new FormatNamespace());
  for (const [name, f] of NAMED_FORMATS) {
    env.registerFunction(`k8s.FormatNamespace.${name}(): ${FORMAT_T}`, () => f);
  }
  env.registerFunction(
    `k8s.FormatNamespace.named(string): optional<${FORMAT_T}>`,
    (_ns: FormatNamespace, name: string) => {
      const f = namedFormat(name);
      return f === undefined ? Optional.none() : Optional.of(f);
    },
  );
  env.registerFunction(
    `${FORMAT_T}.validate(string): optional<list<string>>`,
    libraryCall((f: NamedFormat, s: string) => {
      const errs = f.validate(s);
      return errs === undefined ? Optional.none() : Optional.of(errs);
    }),
  );
}

/**
 * apiserver's `Format.MaxRegexSize` of each named format (by its Go name): the regular expression length its
 * runtime cost assumes. A format without one has 0 (Go's zero value).
 */
const MAX_REGEX_SIZE: Readonly<Record<string, number>> = {
  DNS1123Label: 30,
  DNS1123Subdomain: 60,
  DNS1035Label: 30,
  QualifiedName: 60,
  DNS1123LabelPrefix: 30,
  DNS1123SubdomainPrefix: 60,
  DNS1035LabelPrefix: 30,
  LabelValue: 40,
  URI: 1103,
  uuid: 70,
  byte: 84,
  date: 71,
  datetime: 71,
};

/** Kubernetes' CallCost of `f.validate(s)`: the string's traversal (plus 1) times the format's regex factor. */
const validateCharge: RuntimeCharge = (ops) => {
  const f = ops[0];
  const regexSize = f instanceof NamedFormat ? (MAX_REGEX_SIZE[f.name] ?? 0) : 0;
  return Math.ceil((1 + actualSize(ops[1])) * STRING_TRAVERSAL) * Math.ceil(regexSize * REGEX_LENGTH);
};

export const FORMAT_LIBRARY: CelLibrary = {
  name: "format",
  register,
  callCosts: {
    validate: (target, args) => {
      if (target === undefined || args.length < 1) return undefined;
      return {
        cost: byFactor(byFactor(sizeOf(args[0]!), STRING_TRAVERSAL), MAX_NAME_FORMAT_REGEX_SIZE * REGEX_LENGTH),
      };
    },
    "format.named": constantCost,
    "_==_": typedEqualityCost(FORMAT_T, () => ({
      cost: byFactor({ min: 1, max: MAX_FORMAT_SIZE }, STRING_TRAVERSAL),
    })),
  },
  runtimeCosts: {
    validate: () => validateCharge,
  },
};
