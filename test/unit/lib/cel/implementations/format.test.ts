import { describe, expect, it } from "vitest";
import { NAMED_FORMATS, namedFormat } from "../../../../../lib/cel/implementations/format.js";

const LABEL_RE =
  "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')";
const SUBDOMAIN_RE =
  "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')";
const DNS1035_RE =
  "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')";
const QNAME_RE =
  "must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')";
const LABEL_VALUE_RE =
  "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')";

function validate(name: string, value: string): string[] | undefined {
  const f = namedFormat(name);
  if (f === undefined) throw new Error(`no format ${name}`);
  return f.validate(value);
}

describe("format.named", () => {
  it("knows the 1.36 names", () => {
    expect([...NAMED_FORMATS.keys()].sort()).toEqual(
      [
        "byte",
        "date",
        "datetime",
        "dns1035Label",
        "dns1035LabelPrefix",
        "dns1123Label",
        "dns1123LabelPrefix",
        "dns1123Subdomain",
        "dns1123SubdomainPrefix",
        "labelValue",
        "portName",
        "qualifiedName",
        "uri",
        "uuid",
      ].sort(),
    );
  });

  it.each([{ name: "nope" }, { name: "DNS1123Label" }, { name: "" }])("unknown name $name → none", ({ name }) => {
    expect(namedFormat(name)).toBeUndefined();
  });
});

describe("validate", () => {
  it.each([
    { format: "dns1123Label", value: "my-name", want: undefined },
    { format: "dns1123Label", value: "123-abc", want: undefined },
    { format: "dns1123Label", value: "a".repeat(63), want: undefined },
    { format: "dns1123Label", value: "My-Name", want: [LABEL_RE] },
    { format: "dns1123Label", value: "a.b", want: [LABEL_RE] },
    { format: "dns1123Label", value: "", want: [LABEL_RE] },
    { format: "dns1123Label", value: "-a", want: [LABEL_RE] },
    { format: "dns1123Label", value: "a".repeat(64), want: ["must be no more than 63 characters"] },
    { format: "dns1123Label", value: "A".repeat(64), want: ["must be no more than 63 characters", LABEL_RE] },
    { format: "dns1123Label", value: "é".repeat(32), want: ["must be no more than 63 characters", LABEL_RE] },
    { format: "dns1123Subdomain", value: "apiextensions.k8s.io", want: undefined },
    { format: "dns1123Subdomain", value: "a..b", want: [SUBDOMAIN_RE] },
    { format: "dns1123Subdomain", value: "a.", want: [SUBDOMAIN_RE] },
    { format: "dns1123Subdomain", value: `${"a".repeat(63)}.${"b".repeat(189)}`, want: undefined },
    { format: "dns1123Subdomain", value: "a".repeat(254), want: ["must be no more than 253 characters"] },
    { format: "dns1035Label", value: "my-name", want: undefined },
    { format: "dns1035Label", value: "1abc", want: [DNS1035_RE] },
    { format: "dns1123LabelPrefix", value: "my-label-prefix-", want: undefined },
    { format: "dns1123LabelPrefix", value: "-", want: [LABEL_RE] },
    { format: "dns1123LabelPrefix", value: "a-", want: undefined },
    { format: "dns1123LabelPrefix", value: "A-", want: undefined },
    { format: "dns1123LabelPrefix", value: "a--", want: undefined },
    { format: "dns1123LabelPrefix", value: "A--", want: [LABEL_RE] },
    { format: "dns1123SubdomainPrefix", value: "mysubdomain.prefix.-", want: undefined },
    { format: "dns1035LabelPrefix", value: "my-label-prefix-", want: undefined },
    { format: "dns1035LabelPrefix", value: "1-", want: undefined },
    { format: "qualifiedName", value: "apiextensions.k8s.io/v1beta1", want: undefined },
    { format: "qualifiedName", value: "MyName", want: undefined },
    { format: "qualifiedName", value: "/name", want: ["prefix part must be non-empty"] },
    { format: "qualifiedName", value: "Example.com/name", want: [`prefix part ${SUBDOMAIN_RE}`] },
    { format: "qualifiedName", value: "example.com/", want: ["name part must be non-empty", `name part ${QNAME_RE}`] },
    { format: "qualifiedName", value: "", want: ["name part must be non-empty", `name part ${QNAME_RE}`] },
    { format: "qualifiedName", value: "a".repeat(64), want: ["name part must be no more than 63 characters"] },
    {
      format: "qualifiedName",
      value: "a/b/c",
      want: [`a qualified name ${QNAME_RE} with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')`],
    },
    { format: "qualifiedName", value: "-a", want: [`name part ${QNAME_RE}`] },
    { format: "labelValue", value: "", want: undefined },
    { format: "labelValue", value: "my_value", want: undefined },
    { format: "labelValue", value: "-x", want: [LABEL_VALUE_RE] },
    { format: "labelValue", value: "a".repeat(64), want: ["must be no more than 63 characters"] },
    { format: "portName", value: "http", want: undefined },
    { format: "portName", value: "h2c-1", want: undefined },
    {
      format: "portName",
      value: "",
      want: [
        "must contain only alpha-numeric characters (a-z, 0-9), and hyphens (-)",
        "must contain at least one letter or number (a-z, 0-9)",
      ],
    },
    { format: "portName", value: "123", want: ["must contain at least one letter or number (a-z, 0-9)"] },
    {
      format: "portName",
      value: "-a--b-",
      want: ["must not contain consecutive hyphens", "must not begin or end with a hyphen"],
    },
    { format: "portName", value: "a".repeat(16), want: ["must be no more than 15 characters"] },
    {
      format: "portName",
      value: "HTTP",
      want: [
        "must contain only alpha-numeric characters (a-z, 0-9), and hyphens (-)",
        "must contain at least one letter or number (a-z, 0-9)",
      ],
    },
    { format: "uri", value: "http://example.com", want: undefined },
    { format: "uri", value: "example.com", want: ['parse "example.com": invalid URI for request'] },
    // Go quotes printable non-ASCII runes as they are (the message once showed U+FFFD there).
    {
      format: "uri",
      value: "https://ü@example.com/",
      want: ['parse "https://ü@example.com/": net/url: invalid userinfo'],
    },
    { format: "uuid", value: "123e4567-e89b-12d3-a456-426614174000", want: undefined },
    { format: "uuid", value: "not-a-uuid", want: ["does not match the UUID format"] },
    { format: "byte", value: "aGVsbG8=", want: undefined },
    { format: "byte", value: "!!", want: ["invalid base64"] },
    { format: "date", value: "2021-01-01", want: undefined },
    { format: "date", value: "2021-13-01", want: ["invalid date"] },
    { format: "datetime", value: "2021-01-01T00:00:00Z", want: undefined },
    { format: "datetime", value: "yesterday", want: ["invalid datetime"] },
  ])("$format($value)", ({ format, value, want }) => {
    expect(validate(format, value)).toEqual(want);
  });
});
