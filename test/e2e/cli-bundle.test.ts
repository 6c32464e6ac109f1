/**
 * `tollgate bundle build` and `tollgate webhook-config` as a black box: spawn `node audit/cli/bin.js` and check exit
 * codes, files and exact output.
 */

import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parse } from "yaml";
import { loadBundle } from "../../lib/index.js";
import { createS3Store } from "../../lib/storage/index.js";
import { POD_SECURITY_WEBHOOK_RULES } from "../helpers/pod-security-rules.js";
import { type S3TestServer, startS3Server } from "../helpers/s3-server.js";
import { ROOT, type Run, runCommand } from "../helpers/spawn.js";

const EXAMPLES = "examples/policies";
const BROKEN = "test/fixtures/bundles/broken-crd";
const URL_OK = "https://abc123.execute-api.eu-west-1.amazonaws.com/prod/validate";

const scratch = mkdtempSync(join(tmpdir(), "tollgate-e2e-bundle-"));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

function tollgate(args: readonly string[], env: Record<string, string> = {}): Promise<Run> {
  return runCommand(process.execPath, ["audit/cli/bin.js", ...args], {
    env: {
      ...process.env,
      NO_COLOR: "1",
      TOLLGATE_BUNDLE: "",
      TOLLGATE_S3_ENDPOINT: "",
      TOLLGATE_FAILURE_POLICY: "",
      ...env,
    },
  });
}

describe("tollgate bundle build", () => {
  it("writes an artifact that loads as the folder does, and exits 0", async () => {
    // Act
    const out = join(scratch, "examples.json");
    const r = await tollgate(["bundle", "build", EXAMPLES, "-o", out]);

    // Assess
    const folder = await loadBundle(join(ROOT, EXAMPLES));
    expect(r.stderr).toMatch(
      new RegExp(
        `^wrote ${out.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}: 13 kinds, 0 errors, 0 warnings, [0-9.]+ KiB \\(${folder.digest}\\)\n$`,
      ),
    );
    expect(r.stdout).toBe("");
    expect(r.code).toBe(0);
    const artifact = JSON.parse(readFileSync(out, "utf8"));
    expect(artifact).toMatchObject({
      apiVersion: "tollgate.dev/v1alpha1",
      kind: "BundleArtifact",
      digest: folder.digest,
    });
    const loaded = await loadBundle(out);
    expect(loaded.kinds).toEqual(folder.kinds);
    expect(loaded.failures).toEqual(folder.failures);
  });

  it("writes the artifact even with policy failures, lists them, and exits 1", async () => {
    const out = join(scratch, "broken.json");
    const r = await tollgate(["bundle", "build", BROKEN, "-o", out]);
    const folder = await loadBundle(join(ROOT, BROKEN));
    const errors = folder.failures.filter((f) => f.severity === "error").length;
    expect(errors).toBeGreaterThan(0);
    const lines = r.stderr.trimEnd().split("\n");
    expect(
      lines.slice(0, -1).every((l) => l.startsWith(`error ${BROKEN}/`) || l.startsWith(`warning ${BROKEN}/`)),
    ).toBe(true);
    expect(lines.at(-1)).toContain(`${errors} error`);
    expect(r.code).toBe(1);
    expect((await loadBundle(out)).failures).toEqual(folder.failures);
  });

  it('writes to standard output with "-o -"', async () => {
    const r = await tollgate(["bundle", "build", "test/fixtures/bundles/gadgets", "-o", "-"]);
    expect(r.code).toBe(0);
    expect(
      r.stdout.startsWith(
        '{"apiVersion":"tollgate.dev/v1alpha1","kind":"BundleArtifact","format":2,"tollgate":"0.1.0",',
      ),
    ).toBe(true);
    expect(r.stderr).toMatch(/^wrote standard output: /);
  });

  it.each([
    {
      name: "a missing bundle",
      args: ["bundle", "build", "nope/", "-o", "x.json"],
      stderr: 'error: bundle path "nope/" does not exist\n',
    },
    {
      name: "no -o",
      args: ["bundle", "build", EXAMPLES],
      stderr: "error: required option '-o, --output <file>' not specified\n",
    },
  ])("exits 2 for $name", async ({ args, stderr }) => {
    const r = await tollgate(args);
    expect(r.code).toBe(2);
    expect(r.stderr.startsWith(stderr)).toBe(true);
  });
});

describe("tollgate webhook-config", () => {
  it("prints a ValidatingWebhookConfiguration for exactly the covered kinds", async () => {
    const r = await tollgate(["webhook-config", "--bundle", EXAMPLES, "--url", URL_OK, "--timeout-seconds", "5"]);
    expect(r.stderr).toBe("");
    expect(r.code).toBe(0);
    const folder = await loadBundle(join(ROOT, EXAMPLES));
    expect(parse(r.stdout)).toEqual({
      apiVersion: "admissionregistration.k8s.io/v1",
      kind: "ValidatingWebhookConfiguration",
      metadata: { name: "tollgate", annotations: { "tollgate.dev/bundle-digest": folder.digest } },
      webhooks: [
        {
          name: "validate.tollgate.dev",
          clientConfig: { url: URL_OK },
          namespaceSelector: {
            matchExpressions: [{ key: "kubernetes.io/metadata.name", operator: "NotIn", values: ["kube-system"] }],
          },
          rules: [
            // Pod Security (examples/policies/pod-security.yaml).
            ...POD_SECURITY_WEBHOOK_RULES,
            {
              apiGroups: ["demo.tollgate.dev"],
              apiVersions: ["v1alpha1"],
              operations: ["CREATE", "UPDATE"],
              resources: ["tenants"],
              scope: "Cluster",
            },
            {
              apiGroups: ["demo.tollgate.dev"],
              apiVersions: ["v1alpha1"],
              operations: ["CREATE", "UPDATE"],
              resources: ["rollouts", "widgets"],
              scope: "Namespaced",
            },
            {
              apiGroups: ["demo.tollgate.dev"],
              apiVersions: ["v1alpha1"],
              operations: ["UPDATE"],
              resources: ["widgets/status"],
              scope: "Namespaced",
            },
            // The resources the ValidatingAdmissionPolicies match (examples/policies/admission-policies.yaml), as
            // their resourceRules say (scope "*", the API server's default).
            {
              apiGroups: ["apps"],
              apiVersions: ["v1"],
              operations: ["CREATE", "UPDATE"],
              resources: ["deployments"],
              scope: "*",
            },
            {
              apiGroups: [""],
              apiVersions: ["v1"],
              operations: ["CREATE", "UPDATE"],
              resources: ["namespaces"],
              scope: "*",
            },
            // No kubevirt.io or template.openshift.io rules: the example bundle holds no KubeVirt Template, so
            // nothing would check those kinds (registering them with failurePolicy Fail would be a false cover).
          ],
          failurePolicy: "Fail",
          matchPolicy: "Equivalent",
          sideEffects: "None",
          timeoutSeconds: 5,
          admissionReviewVersions: ["v1"],
        },
      ],
    });
  });

  it("reads an artifact, and takes the failure policy from the flag, as JSON", async () => {
    const out = join(scratch, "for-webhook.json");
    expect((await tollgate(["bundle", "build", EXAMPLES, "-o", out])).code).toBe(0);
    const r = await tollgate([
      "webhook-config",
      "--bundle",
      out,
      "--url",
      URL_OK,
      "--failure-policy",
      "Ignore",
      "-o",
      "json",
    ]);
    expect(r.code).toBe(0);
    const fromFolder = await tollgate(["webhook-config", "--bundle", EXAMPLES, "--url", URL_OK, "-o", "json"]);
    const a = JSON.parse(r.stdout);
    const b = JSON.parse(fromFolder.stdout);
    expect(a.webhooks[0].failurePolicy).toBe("Ignore");
    const none = await tollgate([
      "webhook-config",
      "--bundle",
      out,
      "--url",
      URL_OK,
      "--exclude-namespaces",
      "",
      "-o",
      "json",
    ]);
    expect(JSON.parse(none.stdout).webhooks[0].namespaceSelector).toBeUndefined();
    expect(a.webhooks[0].rules).toEqual(b.webhooks[0].rules);
    expect(a.metadata).toEqual(b.metadata);
  });

  it("warns about failed kinds it cannot register", async () => {
    // Prepare: two different documents define the same kind, so neither is used and its plural is not known.
    const dir = join(scratch, "duplicate");
    mkdirSync(dir);
    const crd = readFileSync(join(ROOT, "test/fixtures/bundles/gadgets/gadget-crd.yaml"), "utf8");
    writeFileSync(join(dir, "a.yaml"), crd);
    writeFileSync(join(dir, "b.yaml"), crd.replace("metadata:\n", "metadata:\n  labels: {copy: b}\n"));

    // Act
    const r = await tollgate(["webhook-config", "--bundle", dir, "--url", URL_OK]);

    // Assess
    expect(r.code).toBe(0);
    expect(
      parse(r.stdout).webhooks[0].rules.some(
        (rule: { apiGroups: string[] }) => rule.apiGroups[0] === "fixtures.tollgate.dev",
      ),
    ).toBe(false);
    expect(r.stderr).toBe(
      "warning: fixtures.tollgate.dev/v1/Gadget: its policy failed to compile and its resource name is unknown; no rule registered\n",
    );
  });

  it.each([
    { name: "no --url", args: [], stderr: "error: --url <url> is required" },
    {
      name: "an http URL",
      args: ["--url", "http://x.example.com/validate"],
      stderr: 'the scheme must be "https", not "http"',
    },
    {
      name: "a query",
      args: ["--url", "https://x.example.com/validate?a=1"],
      stderr: "query parameters are not permitted",
    },
    { name: "a fragment", args: ["--url", "https://x.example.com/validate#a"], stderr: "fragments are not permitted" },
    { name: "user info", args: ["--url", "https://u:p@x.example.com/"], stderr: "user information is not permitted" },
    {
      name: "a bad timeout",
      args: ["--url", URL_OK, "--timeout-seconds", "31"],
      stderr: "--timeout-seconds must be an integer from 1 to 30",
    },
    {
      name: "a bad failure policy",
      args: ["--url", URL_OK, "--failure-policy", "Maybe"],
      stderr: "--failure-policy must be Fail or Ignore",
    },
  ])("exits 2 for $name", async ({ args, stderr }) => {
    const r = await tollgate(["webhook-config", "--bundle", EXAMPLES, ...args]);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe("");
    expect(r.stderr).toContain(stderr);
  });
});

describe("bundle build and webhook-config with S3", () => {
  let s3: S3TestServer;
  beforeAll(async () => {
    s3 = await startS3Server({ buckets: ["policies"] });
    const store = await createS3Store({ ...s3.options, bucket: "policies" });
    try {
      for (const name of [
        "admission-policies.yaml",
        "pod-security.yaml",
        "rollout-crd.yaml",
        "tenant-crd.yaml",
        "tollgate.yaml",
        "waivers.yaml",
        "widget-crd.yaml",
      ])
        await store.write(`examples/${name}`, readFileSync(join(ROOT, EXAMPLES, name), "utf8"));
    } finally {
      store.close();
    }
  });
  afterAll(async () => {
    await s3?.stop();
  });

  it("builds from an S3 prefix to an S3 key, and generates the config from it", async () => {
    const build = await tollgate(
      ["bundle", "build", "s3://policies/examples/", "-o", "s3://policies/artifacts/bundle.json"],
      s3.env,
    );
    expect(build.stderr).toMatch(/^wrote s3:\/\/policies\/artifacts\/bundle\.json: 13 kinds, 0 errors, 0 warnings, /);
    expect(build.code).toBe(0);
    const r = await tollgate(
      ["webhook-config", "--bundle", "s3://policies/artifacts/bundle.json", "--url", URL_OK],
      s3.env,
    );
    expect(r.code).toBe(0);
    const local = await tollgate(["webhook-config", "--bundle", EXAMPLES, "--url", URL_OK]);
    expect(r.stdout).toBe(local.stdout);
  });

  it("exits 2 with the storage error for a missing S3 key", async () => {
    const r = await tollgate(["webhook-config", "--bundle", "s3://policies/nope.json", "--url", URL_OK], s3.env);
    expect(r.code).toBe(2);
    expect(r.stderr).toBe(
      "error: cannot read s3://policies/nope.json: NoSuchKey (HTTP 404): The specified key does not exist.\n",
    );
  });
});
