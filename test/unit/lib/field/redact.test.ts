/**
 * The credential rule (lib/field/redact.ts): which field names hold credentials, which paths end at one, the values
 * masked in derived texts, and the errors built with them.
 */
import { describe, expect, it } from "vitest";
import { invalid } from "../../../../lib/field/error.js";
import { createMasker, credentialValues, isCredentialField, isCredentialName } from "../../../../lib/field/redact.js";

const ctx = { source: { kind: "crd" as const, policy: "p" } };

describe("isCredentialName", () => {
  it.each([
    "password",
    "dbPassword",
    "DB_PASSWORD",
    "passwd",
    "passphrase",
    "apiToken",
    "accessToken",
    "tokens",
    "clientSecret",
    "webhookSecret",
    "sshPrivateKey",
    "privateKey",
    "private_key",
    "apiKey",
    "api-key",
    "tlsKey",
    "secretKey",
    "accessKey",
    "credentials",
    "connectionString",
    "connection_string",
    "dsn",
    "basicAuth",
    "authorization",
    "httpCookie",
    "kubeconfig",
    "userData",
    "networkDataBase64",
  ])("%s holds a credential", (name) => {
    expect(isCredentialName(name)).toBe(true);
  });

  it.each([
    "key",
    "keys",
    "topologyKey",
    "sortKey",
    "partitionKey",
    "labelKey",
    "secretRef",
    "passwordSecretRef",
    "secretName",
    "tokenSecretName",
    "certificateRefs",
    "certificateAuthority",
    "tlsCert",
    "caCertificates",
    "tokenRequests",
    "tokenURL",
    "tokenEndpoint",
    "accessTokenMaxAgeSeconds",
    "credentialsMode",
    "authURL",
    "privateZone",
    "image",
    "name",
    "value",
    "monkey",
    "tokenizer",
  ])("%s does not", (name) => {
    expect(isCredentialName(name)).toBe(false);
  });
});

describe("isCredentialField", () => {
  it.each([
    { path: "spec.auth.password", credential: true },
    { path: "spec.tokens[3]", credential: true },
    { path: "spec.credentials.db", credential: true },
    { path: "spec.credentials[db]", credential: true },
    { path: "data[tls.key]", credential: true },
    { path: "data[app.properties]", credential: false },
    { path: "spec.selector.matchExpressions[0].key", credential: false },
    { path: "spec.containers[0].env[1].valueFrom.configMapKeyRef.key", credential: false },
    { path: "spec.containers[0].env[1].valueFrom.secretKeyRef.key", credential: false },
    { path: "spec.tls.certificateRefs[0].name", credential: false },
    { path: "spec.imagePullSecrets[0].name", credential: false },
    { path: "<nil>", credential: false },
  ])("$path: $credential", ({ path, credential }) => {
    expect(isCredentialField(path)).toBe(credential);
  });
});

describe("errors built at credential fields", () => {
  it("drop the value from the message and badValue, for list items too", () => {
    const e = invalid("spec.tokens[0]", "s3cr3t-value", "must start with tk-", ctx);
    expect(e.message).toBe('Invalid value: "<redacted>": must start with tk-');
    expect(e).not.toHaveProperty("badValue");
  });

  it("keep booleans and null, which hold no secret", () => {
    expect(invalid("spec.allowCredentials", true, "bad", ctx).message).toBe("Invalid value: true: bad");
  });

  it("keep the value of an ordinary field", () => {
    expect(invalid("spec.selector.key", "app", "bad", ctx).badValue).toBe("app");
  });
});

describe("masking derived texts", () => {
  it("collects the values of credential fields, Secrets' every value, and items of lists under a credential name", () => {
    const object = { spec: { password: "hunter22", tokens: ["tok-aaaa"], image: "nginx", n: { apiKey: 123456 } } };
    expect([...credentialValues(object, false)].sort()).toEqual(["123456", "hunter22", "tok-aaaa"]);
    expect([...credentialValues({ data: { a: "c2VjcmV0" } }, true)]).toEqual(["c2VjcmV0"]);
  });

  it("replaces the values raw, Go-quoted and JSON-escaped", () => {
    const mask = createMasker(new Set(['pa"ss\nword']));
    expect(mask('the password pa"ss\nword, "pa\\"ss\\nword"')).toBe('the password <redacted>, "<redacted>"');
  });

  it("does not mask values shorter than four characters", () => {
    expect(credentialValues({ password: "abc" }, false).size).toBe(0);
  });
});
