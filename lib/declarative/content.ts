/**
 * The `+k8s:format=` checks with the exact messages of k8s.io/apimachinery/pkg/api/validate (strfmt.go) and its
 * `content` package, as upstream master words them (spec/declarative-validation-behaviour.md section 5.4). These
 * differ from the older k8s.io/apimachinery/pkg/util/validation wording in lib/objects/names.ts ("must be no more
 * than 63 bytes" instead of "characters"), so they live here; the matchers are lib/objects/names.ts's (hand-written:
 * no regular expressions run on untrusted values).
 */

import { utf8Length as byteLength } from "../go/bytes.js";
import {
  C_IDENTIFIER_FMT,
  DNS1123_LABEL_FMT,
  DNS1123_LABEL_MSG,
  DNS1123_SUBDOMAIN_FMT,
  DNS1123_SUBDOMAIN_MSG,
  QUALIFIED_NAME_FMT as LABEL_KEY_FMT,
  QUALIFIED_NAME_MSG as LABEL_KEY_MSG,
  LABEL_VALUE_FMT,
  LABEL_VALUE_MSG,
  matchesCIdentifier,
  matchesDNS1123Label,
  matchesDNS1123Subdomain,
  matchesQualifiedNamePart,
  regexError,
} from "../objects/names.js";

/** One problem found by a format check. `tooLong` problems become FieldValueTooLong errors, the rest Invalid. */
export type FormatProblem = { kind: "invalid"; detail: string; value: string } | { kind: "tooLong"; max: number };

const DNS1123_SUBDOMAIN_CASELESS_MSG =
  "an RFC 1123 subdomain must consist of alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character";
const C_IDENTIFIER_MSG =
  "a valid C identifier must start with alphabetic character or '_', followed by a string of alphanumeric characters or '_'";

/** content.MaxLenError */
function maxLenError(n: number): string {
  return `must be no more than ${n} bytes`;
}

/** content.IsDNS1123Label */
export function isDNS1123Label(value: string): string[] {
  const errs: string[] = [];
  if (byteLength(value) > 63) errs.push(maxLenError(63));
  if (!matchesDNS1123Label(value)) {
    if (matchesDNS1123Subdomain(value)) errs.push("must not contain dots");
    else errs.push(regexError(DNS1123_LABEL_MSG, DNS1123_LABEL_FMT, "my-name", "123-abc"));
  }
  return errs;
}

/** content.IsDNS1123Subdomain / IsDNS1123SubdomainCaseless */
export function isDNS1123Subdomain(value: string, caseless = false): string[] {
  const errs: string[] = [];
  if (byteLength(value) > 253) errs.push(maxLenError(253));
  if (!matchesDNS1123Subdomain(value, caseless)) {
    errs.push(
      caseless
        ? regexError(DNS1123_SUBDOMAIN_CASELESS_MSG, DNS1123_SUBDOMAIN_FMT, "Example.com")
        : regexError(DNS1123_SUBDOMAIN_MSG, DNS1123_SUBDOMAIN_FMT, "example.com"),
    );
  }
  return errs;
}

/** content.IsLabelKey */
function isLabelKey(value: string): string[] {
  const errs: string[] = [];
  const parts = value.split("/");
  let name: string;
  if (parts.length === 1) name = parts[0]!;
  else if (parts.length === 2) {
    const prefix = parts[0]!;
    name = parts[1]!;
    if (prefix.length === 0) errs.push("prefix part must be non-empty");
    else for (const m of isDNS1123Subdomain(prefix)) errs.push(`prefix part ${m}`);
  } else {
    return [
      `a valid label key ${regexError(LABEL_KEY_MSG, LABEL_KEY_FMT, "MyName", "my.name", "123-abc")} with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')`,
    ];
  }
  if (name.length === 0) errs.push("name part must be non-empty");
  else if (byteLength(name) > 63) errs.push(`name part ${maxLenError(63)}`);
  if (!matchesQualifiedNamePart(name))
    errs.push(`name part ${regexError(LABEL_KEY_MSG, LABEL_KEY_FMT, "MyName", "my.name", "123-abc")}`);
  return errs;
}

/** content.IsPrefixedLabelKey */
function isPrefixedLabelKey(value: string): string[] {
  const errs = isLabelKey(value);
  if (errs.length > 0) return errs;
  return value.split("/").length !== 2 ? ["must include a prefix (e.g. 'example.com/key')"] : [];
}

/** content.IsLabelValue */
function isLabelValue(value: string): string[] {
  const errs: string[] = [];
  if (byteLength(value) > 63) errs.push(maxLenError(63));
  if (value.length > 0 && !matchesQualifiedNamePart(value))
    errs.push(regexError(LABEL_VALUE_MSG, LABEL_VALUE_FMT, "MyValue", "my_value", "12345"));
  return errs;
}

/** content.IsPathSegmentName */
function isPathSegmentName(value: string): string[] {
  if (value === "." || value === "..") return [`may not be '${value}'`];
  const errs: string[] = [];
  for (const bad of ["/", "%"]) if (value.includes(bad)) errs.push(`may not contain '${bad}'`);
  return errs;
}

/** content.IsCIdentifier */
function isCIdentifier(value: string): string[] {
  return matchesCIdentifier(value)
    ? []
    : [regexError(C_IDENTIFIER_MSG, C_IDENTIFIER_FMT, "my_name", "MY_NAME", "MyName")];
}

function isLowerHex(c: number): boolean {
  return (c >= 0x30 && c <= 0x39) || (c >= 0x61 && c <= 0x66);
}

function invalidAll(value: string, msgs: string[], prefix = ""): FormatProblem[] {
  return msgs.map((m) => ({ kind: "invalid", detail: prefix + m, value }));
}

function cIdentifier(id: string, max: number): FormatProblem[] {
  const out: FormatProblem[] = [];
  if (byteLength(id) > max) out.push({ kind: "tooLong", max });
  appendAll(out, invalidAll(id, isCIdentifier(id)));
  return out;
}

/**
 * The formats validation-gen supports (`k8s-ip` is documented upstream, but validation-gen rejects it: a generation error).
 * Each maps a value to its problems, in upstream's order.
 */
export const FORMATS: Readonly<Record<string, (value: string) => FormatProblem[]>> = {
  "k8s-short-name": (v) => invalidAll(v, isDNS1123Label(v)),
  "k8s-long-name": (v) => invalidAll(v, isDNS1123Subdomain(v)),
  "k8s-long-name-caseless": (v) => invalidAll(v, isDNS1123Subdomain(v, true)),
  "k8s-label-key": (v) => invalidAll(v, isLabelKey(v)),
  "k8s-prefixed-label-key": (v) => invalidAll(v, isPrefixedLabelKey(v)),
  "k8s-label-value": (v) => invalidAll(v, isLabelValue(v)),
  "k8s-path-segment-name": (v) => invalidAll(v, isPathSegmentName(v)),
  "k8s-uuid": (v) => {
    const bad: FormatProblem[] = [
      { kind: "invalid", detail: "must be a lowercase UUID in 8-4-4-4-12 format", value: v },
    ];
    if (v.length !== 36) return bad;
    for (let i = 0; i < 36; i++) {
      const c = v.charCodeAt(i);
      if (i === 8 || i === 13 || i === 18 || i === 23) {
        if (c !== 0x2d) return bad;
      } else if (!isLowerHex(c)) return bad;
    }
    return [];
  },
  "k8s-resource-pool-name": (v) => {
    const out: FormatProblem[] = [];
    if (byteLength(v) > 253) out.push({ kind: "tooLong", max: 253 });
    v.split("/").forEach((part, i) => {
      if (part.length === 0) out.push({ kind: "invalid", detail: `segment ${i}: must not be empty`, value: v });
      else appendAll(out, invalidAll(part, isDNS1123Subdomain(part), `segment ${i}: `));
    });
    return out;
  },
  "k8s-extended-resource-name": (v) => {
    const out: FormatProblem[] = [];
    if (!v.includes("/"))
      out.push({
        kind: "invalid",
        detail: "a name must be a domain-prefixed path, such as 'example.com/my-prop'",
        value: v,
      });
    else if (v.includes("kubernetes.io/"))
      out.push({ kind: "invalid", detail: 'must not have "kubernetes.io/" domain', value: v });
    if (v.startsWith("requests.")) out.push({ kind: "invalid", detail: 'must not have "requests." prefix', value: v });
    appendAll(out, invalidAll(v, isLabelKey(`requests.${v}`)));
    return out;
  },
  "k8s-resource-fully-qualified-name": (v) => {
    const out: FormatProblem[] = [];
    const parts = v.split("/");
    if (parts.length === 1) appendAll(out, cIdentifier(parts[0]!, 32));
    else if (parts.length === 2) {
      const [prefix, name] = parts as [string, string];
      if (prefix.length === 0) out.push({ kind: "invalid", detail: "prefix must not be empty", value: "" });
      else {
        if (byteLength(prefix) > 63) out.push({ kind: "tooLong", max: 63 });
        appendAll(out, invalidAll(prefix, isDNS1123Subdomain(prefix), "prefix: "));
      }
      if (name.length === 0) out.push({ kind: "invalid", detail: "name must not be empty", value: "" });
      else appendAll(out, cIdentifier(name, 32));
    }
    // Three or more parts: upstream reports nothing here (a TODO in strfmt.go); only the slash check below applies.
    if (!v.includes("/"))
      out.push({
        kind: "invalid",
        detail: "a fully qualified name must be a domain and a name separated by a slash",
        value: v,
      });
    return out;
  },
};

import { appendAll } from "../objects/append.js";
