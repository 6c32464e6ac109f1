/**
 * The Kubernetes format library (apiserver pkg/cel/library/format.go, Kubernetes 1.31+): `format.<name>()`,
 * `format.named(name)`, `<format>.validate(s)`.
 */
import { constantCost, sizeOf, typedEqualityCost } from "../cost/operand.js";
import { byFactor, REGEX_LENGTH, STRING_TRAVERSAL } from "../cost/range.js";
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
};
