/**
 * The bundle artifact: building it from a folder and loading it gives the same digest, kinds, failures and
 * verdicts as loading the folder; it keeps undecodable documents, Go sources and int64 values; a malformed
 * artifact is a policy failure, not an exception.
 */
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { artifactFiles, decodeEntries, isArtifactText, readArtifact } from "../../../../lib/bundle/artifact.js";
import {
  artifactOfLoaded,
  type BundleFile,
  buildBundleArtifact,
  loadBundle,
  type PolicySet,
  parseDocuments,
  readBundleFiles,
  type ValidateRequest,
} from "../../../../lib/index.js";
import { TOLLGATE_VERSION } from "../../../../lib/version.js";

const ROOT = fileURLToPath(new URL("../../../..", import.meta.url));
const FIXTURES = join(ROOT, "test/fixtures");

/** Every object of the fixture folders, as CREATE requests (and UPDATEs against themselves). */
function fixtureRequests(): ValidateRequest[] {
  const out: ValidateRequest[] = [];
  const folders = ["gadgets", "gadgets-update", "gadgets-status"].map((d) => join(FIXTURES, "objects", d));
  for (const folder of [...folders, join(ROOT, "examples", "objects")]) {
    for (const name of readdirSync(folder).sort()) {
      for (const doc of parseDocuments(readFileSync(join(folder, name), "utf8"))) {
        if (doc.object === undefined) continue;
        out.push({ operation: "CREATE", object: doc.object });
        out.push({ operation: "UPDATE", object: doc.object, oldObject: doc.object });
        out.push({ operation: "UPDATE", object: doc.object, oldObject: doc.object, subresource: "status" });
      }
    }
  }
  return out;
}

function expectSameSets(fromArtifact: PolicySet, fromFolder: PolicySet, requests: readonly ValidateRequest[]): void {
  expect(fromArtifact.digest).toBe(fromFolder.digest);
  expect(fromArtifact.kinds).toEqual(fromFolder.kinds);
  expect(fromArtifact.failures).toEqual(fromFolder.failures);
  expect(fromArtifact.notes).toEqual(fromFolder.notes);
  expect(fromArtifact.config).toEqual(fromFolder.config);
  for (const req of requests) expect(fromArtifact.validate(req)).toEqual(fromFolder.validate(req));
}

function asFile(text: string): BundleFile[] {
  return [{ path: "bundle.json", content: text }];
}

/** A CRD of kind `kind` (group t.example.com, version v1) whose spec has `properties` and the given rules. */
function crdYaml(kind: string, spec: string): string {
  return `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: ${kind.toLowerCase()}s.t.example.com
spec:
  group: t.example.com
  names: {kind: ${kind}, plural: ${kind.toLowerCase()}s}
  scope: Namespaced
  versions:
  - name: v1
    served: true
    storage: true
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec:
${spec}
`;
}

const N_BELOW_10 = `            type: object
            x-kubernetes-validations:
            - {rule: "self.count < 10", message: "count must be below 10"}
            properties:
              count: {type: integer}`;

/** CRDs with failures of each stage, a kind defined by two documents, and a document that does not decode. */
function crdFailureFiles(): BundleFile[] {
  return [
    {
      path: "alpha.yaml",
      content: crdYaml(
        "Alpha",
        `            type: object
            properties:
              m: {type: strng}
              x: {type: string, pattern: "([a-z"}
              count: {type: integer, maximum: 9}`,
      ),
    },
    {
      path: "beta.yaml",
      content: crdYaml(
        "Beta",
        `            type: object
            x-kubernetes-validations:
            - {rule: "self.nope == 1"}
            - {rule: "self.count < 10", message: "count must be below 10"}
            properties:
              count: {type: integer}`,
      ),
    },
    { path: "broken.yaml", content: "a: [1\n" },
    { path: "delta.yaml", content: crdYaml("Delta", N_BELOW_10) },
    { path: "gamma-1.yaml", content: crdYaml("Gamma", N_BELOW_10) },
    { path: "gamma-2.yaml", content: crdYaml("Gamma", N_BELOW_10.replace("below 10", "under ten")) },
  ];
}

function crObject(kind: string, spec: Record<string, unknown>): Record<string, unknown> {
  return { apiVersion: "t.example.com/v1", kind, metadata: { name: "a", namespace: "n" }, spec };
}

const GO_FILES: BundleFile[] = [
  { path: "go.mod", content: "module example.com/t\n\ngo 1.22\n" },
  { path: "api/v1/doc.go", content: "// +groupName=t.example.com\npackage v1\n" },
  {
    path: "api/v1/types.go",
    content: [
      "package v1",
      "",
      "type TypeMeta struct {",
      '\tKind       string `json:"kind,omitempty"`',
      '\tAPIVersion string `json:"apiVersion,omitempty"`',
      "}",
      "",
      "type Thing struct {",
      '\tTypeMeta `json:",inline"`',
      '\tSpec ThingSpec `json:"spec"`',
      "}",
      "",
      "type ThingSpec struct {",
      "\t// +k8s:minimum=1",
      '\tReplicas int32 `json:"replicas"`',
      "}",
      "",
    ].join("\n"),
  },
];

const INT64_CRD = `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: counters.big.example.com
spec:
  group: big.example.com
  names: {kind: Counter, plural: counters, singular: counter, listKind: CounterList}
  scope: Namespaced
  versions:
  - name: v1
    served: true
    storage: true
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec:
            type: object
            properties:
              count:
                type: integer
                format: int64
                maximum: 9223372036854775806
                default: 9007199254740993
`;

describe("bundle artifact", () => {
  it.each([
    { name: "gadgets (a CRD with CEL rules)", folder: join(FIXTURES, "bundles", "gadgets") },
    { name: "broken-crd (compile failures)", folder: join(FIXTURES, "bundles", "broken-crd") },
    { name: "examples/policies (CRDs, tollgate.yaml)", folder: join(ROOT, "examples", "policies") },
  ])("$name: loading the artifact gives the folder's digest, kinds, failures and verdicts", async ({ folder }) => {
    // Prepare
    const fromFolder = await loadBundle(folder);

    // Act
    const built = await buildBundleArtifact(folder);
    const fromArtifact = await loadBundle(asFile(built.text));

    // Assess
    expect(built.text.startsWith('{"apiVersion":"tollgate.dev/v1alpha1","kind":"BundleArtifact","format":2,')).toBe(
      true,
    );
    expect(built.artifact.tollgate).toBe(TOLLGATE_VERSION);
    expect(built.artifact.build.failures).toEqual(fromFolder.failures);
    expect(built.artifact.build.kinds).toEqual(fromFolder.kinds);
    expectSameSets(fromArtifact, fromFolder, fixtureRequests());
  });

  it("CRDs: the artifact gives the folder's failures in the folder's order (schema, pattern, CEL, duplicates) and its verdicts", async () => {
    // Prepare: a schema error before a pattern error in one CRD, a CEL rule that does not compile, a kind defined
    // twice, a usable CRD, and a document that does not decode
    const files = crdFailureFiles();
    const fromFolder = await loadBundle(files);
    const requests: ValidateRequest[] = ["Alpha", "Beta", "Gamma", "Delta"].flatMap((kind) => [
      { operation: "CREATE", object: crObject(kind, { x: "a", count: 3 }) },
      { operation: "CREATE", object: crObject(kind, { count: 30 }) },
    ]);

    // Act
    const fromArtifact = await loadBundle(asFile((await buildBundleArtifact(files)).text));

    // Assess
    expect(fromFolder.failures.map((f) => `${f.file} ${f.stage}`)).toEqual([
      "broken.yaml decode",
      "alpha.yaml schema",
      "alpha.yaml pattern",
      "beta.yaml cel",
      "gamma-1.yaml schema",
    ]);
    expectSameSets(fromArtifact, fromFolder, requests);
  });

  it("CRDs: an artifact's CRD kinds and failures are its build's (the schemas compile on a kind's first use)", async () => {
    // Prepare: the build record says one thing more about the CRDs than the documents do
    const built = await buildBundleArtifact(crdFailureFiles().filter((f) => f.path !== "broken.yaml"));
    const artifact = JSON.parse(built.text) as {
      build: { kinds: { kind: string; rules: number }[]; failures: unknown[] };
    };
    for (const k of artifact.build.kinds) if (k.kind === "Delta") k.rules = 999;
    artifact.build.failures.push({
      severity: "warning",
      family: "crd",
      stage: "schema",
      file: "delta.yaml",
      message: "from the build",
    });

    // Act
    const set = await loadBundle(asFile(JSON.stringify(artifact)));

    // Assess
    expect(set.kinds.find((k) => k.kind === "Delta")?.rules).toBe(999);
    expect(set.failures.at(-1)?.message).toBe("from the build");
    const verdict = set.validate({ operation: "CREATE", object: crObject("Delta", { count: 30 }) });
    expect(verdict.errors.map((e) => `${e.field}: ${e.detail}`)).toEqual(["spec: count must be below 10"]);
  });

  it("admission policies: the artifact's policies compile on first use, with the folder's failures (each once) and verdicts", async () => {
    // Prepare: the fixture's policies, and one whose first validation does not compile
    const broken: BundleFile = {
      path: "broken-policy.yaml",
      content: `apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata: {name: broken}
spec:
  failurePolicy: Fail
  matchConstraints:
    resourceRules:
    - {apiGroups: [""], apiVersions: ["v1"], operations: ["CREATE"], resources: ["configmaps"]}
  validations:
  - expression: "object.data.size() > 'x'"
  - expression: "object.metadata.name.startsWith('a')"
---
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicyBinding
metadata: {name: broken}
spec: {policyName: broken, validationActions: [Deny]}
`,
    };
    const files = [...(await readBundleFiles(join(FIXTURES, "bundles", "admission-policy"))), broken];
    const fromFolder = await loadBundle(files);
    const requests: ValidateRequest[] = ["a-map", "b-map"].flatMap((name) => [
      { operation: "CREATE", object: { apiVersion: "v1", kind: "ConfigMap", metadata: { name, namespace: "shop" } } },
      {
        operation: "CREATE",
        object: { apiVersion: "apps/v1", kind: "Deployment", metadata: { name, namespace: "shop" }, spec: {} },
      },
    ]);

    // Act
    const fromArtifact = await loadBundle(asFile((await buildBundleArtifact(files)).text));

    // Assess
    const compileFailures = fromFolder.failures.filter((f) => f.stage === "cel");
    expect(compileFailures.map((f) => f.path)).toContain("spec.validations[0].expression");
    expectSameSets(fromArtifact, fromFolder, requests);
    expect(fromArtifact.validate(requests[0]!).errors[0]?.detail).toContain("compilation error: compilation failed");
  });

  it("building from an artifact gives the same artifact", async () => {
    const built = await buildBundleArtifact(join(FIXTURES, "bundles", "gadgets"));
    const again = await buildBundleArtifact(asFile(built.text));
    expect(again.text).toBe(built.text);
  });

  it("the artifact of a set already loaded is the build's artifact; of another set, none", async () => {
    // Prepare
    const folder = join(FIXTURES, "bundles", "broken-crd");
    const files = await readBundleFiles(folder);
    const loaded = await loadBundle(files);
    const other = await loadBundle(join(FIXTURES, "bundles", "gadgets"));

    // Act
    const fromLoaded = artifactOfLoaded(files, loaded);
    const built = await buildBundleArtifact(folder);

    // Assess
    expect(fromLoaded?.text).toBe(built.text);
    expect(artifactOfLoaded(files, other)).toBeUndefined();
  });

  it("keeps undecodable documents and non-policy files as the folder reports them", async () => {
    const files: BundleFile[] = [
      { path: "bad.yaml", content: "a: [1\n" },
      { path: "notes.txt.json", content: '{"hello": "world"}' },
      { path: "README.md", content: "# not a policy" },
    ];
    const fromFiles = await loadBundle(files);
    const built = await buildBundleArtifact(files);
    const fromArtifact = await loadBundle(asFile(built.text));
    expect(fromFiles.failures.map((f) => [f.file, f.severity])).toEqual([
      ["bad.yaml", "error"],
      ["notes.txt.json", "error"],
    ]);
    expect(fromFiles.notes).toEqual([{ file: "README.md", message: "not a policy file: ignored" }]);
    const configMap = { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "c" } };
    expectSameSets(fromArtifact, fromFiles, [{ operation: "CREATE", object: configMap }]);
  });

  it("keeps int64 values beyond 2^53 exact", async () => {
    // Prepare
    const files = [{ path: "counter.yaml", content: INT64_CRD }];
    const object = { apiVersion: "big.example.com/v1", kind: "Counter", metadata: { name: "c" }, spec: {} };
    const over = { ...object, spec: { count: 9223372036854775807n } };

    // Act
    const built = await buildBundleArtifact(files);
    const fromArtifact = await loadBundle(asFile(built.text));
    const fromFiles = await loadBundle(files);

    // Assess
    const doc = built.artifact.files[0];
    expect(doc && "documents" in doc ? doc.documents[0] : undefined).toMatchObject({
      bigints: [
        ["spec", "versions", 0, "schema", "openAPIV3Schema", "properties", "spec", "properties", "count", "maximum"],
        ["spec", "versions", 0, "schema", "openAPIV3Schema", "properties", "spec", "properties", "count", "default"],
      ],
    });
    expectSameSets(fromArtifact, fromFiles, [
      { operation: "CREATE", object },
      { operation: "CREATE", object: over },
    ]);
    const defaulted = fromArtifact.validate({ operation: "CREATE", object }).object as { spec: { count: unknown } };
    expect(defaulted.spec.count).toBe(9007199254740993n);
  });

  it("carries Go sources verbatim and compiles them at load like the folder", async () => {
    const built = await buildBundleArtifact(GO_FILES);
    const fromArtifact = await loadBundle(asFile(built.text));
    const fromFiles = await loadBundle(GO_FILES);
    expect(built.artifact.files.map((f) => ("content" in f ? f.path : undefined))).toEqual([
      "go.mod",
      "api/v1/doc.go",
      "api/v1/types.go",
    ]);
    expect(
      fromFiles.kinds.filter((k) => k.family === "declarative").map((k) => `${k.group}/${k.version}/${k.kind}`),
    ).toEqual(["t.example.com/v1/Thing"]);
    const thing = (replicas: number) => ({
      operation: "CREATE" as const,
      object: { apiVersion: "t.example.com/v1", kind: "Thing", spec: { replicas } },
    });
    expectSameSets(fromArtifact, fromFiles, [thing(0), thing(3)]);
    expect(fromArtifact.validate(thing(0)).allowed).toBe(false);
  });

  it.each([
    { name: "not JSON", text: '{"apiVersion":"tollgate.dev/v1alpha1","kind":"BundleArtifact",', message: "not JSON" },
    {
      name: "another format",
      text: '{"apiVersion":"tollgate.dev/v1alpha1","kind":"BundleArtifact","format":99,"digest":"x","files":[]}',
      message: "format 99 is not supported (this tollgate reads format 2): rebuild it with tollgate bundle build",
    },
    {
      name: "format 1, which does not say which version built it",
      text: '{"apiVersion":"tollgate.dev/v1alpha1","kind":"BundleArtifact","format":1,"digest":"x","files":[]}',
      message: "format 1 is not supported (this tollgate reads format 2): rebuild it with tollgate bundle build",
    },
    {
      name: "built by another version",
      text: '{"apiVersion":"tollgate.dev/v1alpha1","kind":"BundleArtifact","format":2,"tollgate":"0.0.9","digest":"x","files":[]}',
      message: `built by tollgate "0.0.9", and this is tollgate ${TOLLGATE_VERSION}: an artifact holds its build's decoded documents and compile results, so only the version that built it serves it: rebuild it with tollgate bundle build`,
    },
    {
      name: "no version",
      text: '{"apiVersion":"tollgate.dev/v1alpha1","kind":"BundleArtifact","format":2,"digest":"x","files":[]}',
      message: `built by tollgate undefined, and this is tollgate ${TOLLGATE_VERSION}`,
    },
    {
      name: "a wrong shape",
      text: `{"apiVersion":"tollgate.dev/v1alpha1","kind":"BundleArtifact","format":2,"tollgate":"${TOLLGATE_VERSION}","digest":"x","files":[{"path":1}]}`,
      message: "files[0].path: must be a string",
    },
    {
      name: "a bad bigint path",
      text: `{"apiVersion":"tollgate.dev/v1alpha1","kind":"BundleArtifact","format":2,"tollgate":"${TOLLGATE_VERSION}","digest":"x","files":[{"path":"a.yaml","documents":[{"document":0,"line":1,"object":{"a":1},"bigints":[["a"]]}]}]}`,
      message: 'files[0].documents[0].bigints: ["a"] is not an integer string',
    },
  ])("a malformed artifact ($name) is an error-severity policy failure of every kind", async ({ text, message }) => {
    const set = await loadBundle(asFile(text));
    expect(set.kinds.filter((k) => k.family === "crd")).toEqual([]);
    expect(set.failures).toEqual([
      {
        severity: "error",
        family: "config",
        file: "bundle.json",
        kinds: ["*"],
        message: expect.stringContaining(`malformed bundle artifact: ${message}`),
      },
    ]);
    // Its policies are lost, so no object passes as not covered (failurePolicy Fail).
    const v = set.validate({ operation: "CREATE", object: { apiVersion: "v1", kind: "ConfigMap", metadata: {} } });
    expect(v).toMatchObject({ allowed: false, covered: true, errors: [{ type: "InternalError", field: "kind" }] });
  });

  it.each([
    { text: '{"apiVersion":"tollgate.dev/v1alpha1","kind":"BundleArtifact"}', want: true },
    { text: '\n  {\n  "kind": "BundleArtifact", "apiVersion": "tollgate.dev/v1alpha1"}', want: true },
    { text: "kind: BundleArtifact\n", want: false },
    { text: '{"apiVersion":"v1","kind":"ConfigMap","data":{"kind":"x"}}', want: false },
    { text: "", want: false },
  ])("recognises an artifact by content: $text", ({ text, want }) => {
    expect(isArtifactText(text)).toBe(want);
  });

  it("round-trips decoded documents, __proto__ keys included", () => {
    const files = [{ path: "a.yaml", content: '{"__proto__": {"x": 1}, "n": 12345678901234567890, "f": 1.5}' }];
    const entries = decodeEntries(files, { maxBytes: 1 << 20, maxDepth: 64 });
    const text = JSON.stringify({
      apiVersion: "tollgate.dev/v1alpha1",
      kind: "BundleArtifact",
      format: 2,
      tollgate: TOLLGATE_VERSION,
      digest: "d",
      files: artifactFiles(entries),
    });
    const back = readArtifact({ path: "x.json", content: text });
    expect(back.failures).toEqual([]);
    expect(back.entries[0]?.documents).toEqual(entries[0]?.documents);
    expect(Object.getPrototypeOf(back.entries[0]?.documents?.[0]?.object)).toBe(Object.prototype);
  });
});
