/**
 * infra/validating-webhook-configuration.yaml is generated (`tollgate webhook-config`, see its header): it must
 * still be what the generator makes of examples/policies, so that the registered rules match the policies.
 */
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { expect, it } from "vitest";
import { parse } from "yaml";
import { webhookConfiguration } from "../../audit/cli/commands/webhook-config.js";
import { loadBundle } from "../../lib/index.js";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));

it("infra/validating-webhook-configuration.yaml is current with examples/policies", async () => {
  const committed = parse(readFileSync(`${ROOT}infra/validating-webhook-configuration.yaml`, "utf8"));
  const policySet = await loadBundle(`${ROOT}examples/policies`);
  const { object } = webhookConfiguration(policySet, {
    url: "https://abcdef1234.execute-api.eu-west-1.amazonaws.com/validate",
    failurePolicy: undefined,
    timeoutSeconds: 5,
    name: "tollgate",
    excludeNamespaces: ["kube-system"],
  });
  expect(committed).toEqual(object);
});
