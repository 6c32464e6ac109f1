import { describe, expect, it } from "vitest";
import { FORMATS, type FormatProblem } from "../../../../lib/declarative/content.js";
import { regexError } from "../../../../lib/objects/names.js";

const LABEL_RE = regexError(
  "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character",
  "[a-z0-9]([-a-z0-9]*[a-z0-9])?",
  "my-name",
  "123-abc",
);
const SUBDOMAIN_RE = regexError(
  "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character",
  "[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*",
  "example.com",
);
const NAME_PART_RE = `name part ${regexError(
  "must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character",
  "([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]",
  "MyName",
  "my.name",
  "123-abc",
)}`;
const C_ID_RE = regexError(
  "a valid C identifier must start with alphabetic character or '_', followed by a string of alphanumeric characters or '_'",
  "[A-Za-z_][A-Za-z0-9_]*",
  "my_name",
  "MY_NAME",
  "MyName",
);

function details(problems: FormatProblem[]): string[] {
  return problems.map((p) => (p.kind === "tooLong" ? `TooLong ${p.max}` : p.detail));
}

describe("regexError (content.RegexError)", () => {
  it("puts two spaces after every example but the last, as apimachinery does", () => {
    expect(regexError("bad", "re", "a", "b")).toBe("bad (e.g. 'a',  or 'b', regex used for validation is 're')");
    expect(regexError("bad", "re")).toBe("bad (regex used for validation is 're')");
  });
});

describe("+k8s:format checks (validate/strfmt.go, master wording)", () => {
  it.each([
    { format: "k8s-short-name", value: "front-1", want: [] },
    { format: "k8s-short-name", value: "a.b", want: ["must not contain dots"] },
    { format: "k8s-short-name", value: "-front", want: [LABEL_RE] },
    { format: "k8s-short-name", value: "", want: [LABEL_RE] },
    { format: "k8s-short-name", value: "a".repeat(64), want: ["must be no more than 63 bytes"] },
    { format: "k8s-long-name", value: "widgets.example.com", want: [] },
    {
      format: "k8s-long-name",
      value: `${"a".repeat(63)}.${"b".repeat(190)}`,
      want: ["must be no more than 253 bytes"],
    },
    { format: "k8s-long-name", value: "Bad_Host", want: [SUBDOMAIN_RE] },
    { format: "k8s-long-name-caseless", value: "Example.COM", want: [] },
    { format: "k8s-label-value", value: "", want: [] },
    { format: "k8s-label-value", value: "Front.Door-1", want: [] },
    { format: "k8s-label-value", value: "a".repeat(64), want: ["must be no more than 63 bytes"] },
    { format: "k8s-label-key", value: "example.com/Role_1", want: [] },
    { format: "k8s-label-key", value: "example.com/", want: ["name part must be non-empty", NAME_PART_RE] },
    { format: "k8s-label-key", value: "/name", want: ["prefix part must be non-empty"] },
    { format: "k8s-label-key", value: `x/${"a".repeat(64)}`, want: ["name part must be no more than 63 bytes"] },
    { format: "k8s-prefixed-label-key", value: "owner", want: ["must include a prefix (e.g. 'example.com/key')"] },
    { format: "k8s-prefixed-label-key", value: "example.com/owner", want: [] },
    { format: "k8s-uuid", value: "123e4567-e89b-12d3-a456-426614174000", want: [] },
    {
      format: "k8s-uuid",
      value: "123E4567-E89B-12D3-A456-426614174000",
      want: ["must be a lowercase UUID in 8-4-4-4-12 format"],
    },
    { format: "k8s-path-segment-name", value: "Front Door", want: [] },
    { format: "k8s-path-segment-name", value: "..", want: ["may not be '..'"] },
    { format: "k8s-path-segment-name", value: "a/b%c", want: ["may not contain '/'", "may not contain '%'"] },
    { format: "k8s-extended-resource-name", value: "example.com/gpu", want: [] },
    {
      format: "k8s-extended-resource-name",
      value: "kubernetes.io/gpu",
      want: ['must not have "kubernetes.io/" domain'],
    },
    {
      format: "k8s-extended-resource-name",
      value: "gpu",
      want: ["a name must be a domain-prefixed path, such as 'example.com/my-prop'"],
    },
    { format: "k8s-resource-fully-qualified-name", value: "gpu.example.com/nvidia_a100", want: [] },
    {
      format: "k8s-resource-fully-qualified-name",
      value: "gpu",
      want: ["a fully qualified name must be a domain and a name separated by a slash"],
    },
    {
      format: "k8s-resource-fully-qualified-name",
      value: "/1x",
      want: ["prefix must not be empty", C_ID_RE],
    },
    {
      format: "k8s-resource-fully-qualified-name",
      value: `example.com/${"a".repeat(33)}`,
      want: ["TooLong 32"],
    },
    { format: "k8s-resource-pool-name", value: "pool-a.example.com/rack-1", want: [] },
    { format: "k8s-resource-pool-name", value: "pool-a//rack-1", want: ["segment 1: must not be empty"] },
    { format: "k8s-resource-pool-name", value: "Pool", want: [`segment 0: ${SUBDOMAIN_RE}`] },
  ])("$format $value", ({ format, value, want }) => {
    const check = FORMATS[format];
    expect(check).toBeDefined();
    expect(details(check!(value))).toEqual(want);
  });

  it("has no k8s-ip (documented upstream, not implemented: a generation error)", () => {
    expect(FORMATS["k8s-ip"]).toBeUndefined();
  });
});
