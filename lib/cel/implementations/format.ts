/**
 * The Kubernetes CEL format library (k8s.io/apiserver/pkg/cel/library/format.go, type
 * `kubernetes.NamedFormat`): `format.named(name)` and `format.<name>()` return a format whose
 * `validate(s)` is `optional.none()` when `s` is valid, otherwise `optional.of(list of messages)`.
 *
 * The formats and their messages (apimachinery 1.36, `k8s.io/apimachinery/pkg/util/validation`
 * and `pkg/api/validation`; kube-openapi strfmt for the CRD formats):
 *
 * | name | check |
 * |---|---|
 * | `dns1123Label` | `IsDNS1123Label` (≤ 63 bytes, `[a-z0-9]([-a-z0-9]*[a-z0-9])?`) |
 * | `dns1123Subdomain` | `IsDNS1123Subdomain` (≤ 253 bytes, labels joined by `.`) |
 * | `dns1035Label` | `IsDNS1035Label` (≤ 63 bytes, starts with a letter) |
 * | `qualifiedName` | `IsQualifiedName` (optional DNS-subdomain prefix and `/`, name ≤ 63 bytes) |
 * | `portName` | `IsValidPortName` (≤ 15 bytes, `[-a-z0-9]`, a letter, no `--`, no edge `-`) |
 * | `dns1123LabelPrefix`, `dns1123SubdomainPrefix`, `dns1035LabelPrefix` | the same on a name prefix: a trailing `-` is allowed (`maskTrailingDash`) |
 * | `labelValue` | `IsValidLabelValue` (≤ 63 bytes, may be empty) |
 * | `uri` | Go `url.ParseRequestURI`; the message is its error text |
 * | `uuid` | strfmt `uuid` → `does not match the UUID format` |
 * | `byte` | strfmt `byte` (base64) → `invalid base64` |
 * | `date` | strfmt `date` → `invalid date` |
 * | `datetime` | strfmt `datetime` → `invalid datetime` |
 *
 * The name checks and their messages are lib/objects/names.ts's (apimachinery's `RegexError` wording, lengths in
 * UTF-8 bytes as Go's `len` counts them while the messages say "characters").
 */

import { parseRequestURI } from "../../go/url.js";
import {
  isDNS1035Label,
  isDNS1123Label,
  isDNS1123Subdomain,
  isQualifiedName,
  isValidLabelValue,
  isValidPortName,
} from "../../objects/names.js";
import { checkStringFormat } from "../../schema/formats.js";

function strfmt(format: string, message: string): (s: string) => string[] {
  return (s) => (checkStringFormat(format, s) ? [] : [message]);
}

/** A CEL `kubernetes.NamedFormat` value. */
export class NamedFormat {
  /** The Go `Format.Name` (`DNS1123Label`, `uri`, ...). */
  readonly name: string;
  readonly #validate: (s: string) => string[];

  constructor(name: string, validate: (s: string) => string[]) {
    this.name = name;
    this.#validate = validate;
  }

  /**
   * CEL `f.validate(s)`: `undefined` when `s` is valid (CEL `optional.none()`), otherwise the
   * messages (CEL `optional.of([...])`).
   */
  validate(s: string): string[] | undefined {
    const errs = this.#validate(s);
    return errs.length === 0 ? undefined : errs;
  }
}

/** The named formats of Kubernetes 1.36 (`ConstantFormats`), by the name CEL uses. */
export const NAMED_FORMATS: ReadonlyMap<string, NamedFormat> = new Map<string, NamedFormat>([
  ["dns1123Label", new NamedFormat("DNS1123Label", (s) => isDNS1123Label(s))],
  ["dns1123Subdomain", new NamedFormat("DNS1123Subdomain", (s) => isDNS1123Subdomain(s))],
  ["dns1035Label", new NamedFormat("DNS1035Label", (s) => isDNS1035Label(s))],
  ["qualifiedName", new NamedFormat("QualifiedName", isQualifiedName)],
  ["portName", new NamedFormat("PortName", isValidPortName)],
  ["dns1123LabelPrefix", new NamedFormat("DNS1123LabelPrefix", (s) => isDNS1123Label(s, "prefix"))],
  ["dns1123SubdomainPrefix", new NamedFormat("DNS1123SubdomainPrefix", (s) => isDNS1123Subdomain(s, "prefix"))],
  ["dns1035LabelPrefix", new NamedFormat("DNS1035LabelPrefix", (s) => isDNS1035Label(s, "prefix"))],
  ["labelValue", new NamedFormat("LabelValue", isValidLabelValue)],
  [
    "uri",
    new NamedFormat("URI", (s) => {
      const r = parseRequestURI(s);
      return r.ok ? [] : [r.error];
    }),
  ],
  ["uuid", new NamedFormat("uuid", strfmt("uuid", "does not match the UUID format"))],
  ["byte", new NamedFormat("byte", strfmt("byte", "invalid base64"))],
  ["date", new NamedFormat("date", strfmt("date", "invalid date"))],
  ["datetime", new NamedFormat("datetime", strfmt("datetime", "invalid datetime"))],
]);

/** CEL `format.named(name)`: the format, or `undefined` (CEL `optional.none()`) for an unknown name. */
export function namedFormat(name: string): NamedFormat | undefined {
  return NAMED_FORMATS.get(name);
}
