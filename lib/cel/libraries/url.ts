/** The Kubernetes URL library (apiserver pkg/cel/library/urls.go): Go net/url semantics. */
import { computeSize, constantCost, sizeOf, typedEqualityCost } from "../cost/operand.js";
import { byFactor, ONE, STRING_TRAVERSAL } from "../cost/range.js";
import { always, firstOperandTraversal } from "../cost/runtime.js";
import type { EngineRegistrar } from "../engine.js";
import { isURL, parseURLValue, URLValue } from "../implementations/url.js";
import { type CelLibrary, libraryCall } from "./library.js";

const URL_T = "kubernetes.URL";

function register(env: EngineRegistrar): void {
  env.registerType(URL_T, { ctor: URLValue, fields: {} });
  env.registerFunction(
    `url(string): ${URL_T}`,
    libraryCall((s: string) => parseURLValue(s)),
  );
  env.registerFunction(
    "isURL(string): bool",
    libraryCall((s: string) => isURL(s)),
  );
  env.registerFunction(`${URL_T}.getScheme(): string`, (u: URLValue) => u.getScheme());
  env.registerFunction(`${URL_T}.getHost(): string`, (u: URLValue) => u.getHost());
  env.registerFunction(`${URL_T}.getHostname(): string`, (u: URLValue) => u.getHostname());
  env.registerFunction(`${URL_T}.getPort(): string`, (u: URLValue) => u.getPort());
  env.registerFunction(`${URL_T}.getEscapedPath(): string`, (u: URLValue) => u.getEscapedPath());
  env.registerFunction(`${URL_T}.getQuery(): map<string, list<string>>`, (u: URLValue) => u.getQuery());
  env.registerOperator(`${URL_T} == ${URL_T}`, (a: URLValue, b: URLValue) => a.equals(b));
}

export const URL_LIBRARY: CelLibrary = {
  name: "url",
  register,
  runtimeCosts: { url: always(firstOperandTraversal(1)) },
  callCosts: {
    url: (_target, args) => {
      if (args.length !== 1) return undefined;
      const sz = sizeOf(args[0]!);
      return { cost: byFactor(sz, STRING_TRAVERSAL), resultSize: sz };
    },
    getScheme: constantCost,
    getHostname: constantCost,
    getHost: constantCost,
    getPort: constantCost,
    getEscapedPath: constantCost,
    getQuery: constantCost,
    // Kubernetes reads the right-hand size twice.
    "_==_": typedEqualityCost(URL_T, (_target, args) => {
      const size = computeSize(args[1]!) ?? ONE;
      return { cost: byFactor({ min: 1, max: size.max }, STRING_TRAVERSAL) };
    }),
  },
};
