/**
 * One finding as a result of the policy reports (the wg-policy and openreports result shape), written straight to
 * its YAML text as an entry of a `results` sequence: the text yaml-emit.ts would write for the result's mapping
 * (same keys in the same order, scalars written by its yamlString), without building the mapping first. A large run
 * has hundreds of thousands of results; building and walking a generic mapping for each was most of the reports'
 * time.
 */
import type { Finding, FindingSeverity } from "../model.js";
import { yamlString as y, yamlNumber } from "./yaml-emit.js";

export type Result = "pass" | "fail" | "warn" | "error" | "skip";

const RESULT: Record<FindingSeverity, Result> = {
  violation: "fail",
  "template-annotation-failure": "fail",
  warning: "warn",
  // Recorded by the API server, not returned to the client: still a result that says the rule is not met.
  audit: "warn",
  shadow: "skip",
  "policy-failure": "error",
  "input-error": "error",
  // Waived by a governed waiver: the rule is not met, and deliberately not enforced until the waiver expires.
  waived: "skip",
};

const SEVERITY: Record<FindingSeverity, string> = {
  violation: "high",
  "template-annotation-failure": "high",
  "policy-failure": "high",
  "input-error": "medium",
  warning: "medium",
  audit: "low",
  shadow: "info",
  // Replaced by the severity of what the finding is without its waiver.
  waived: "info",
};

/** The result a finding becomes (its `result`), for counting before the results are written. */
export function resultKind(f: Finding): Exclude<Result, "pass"> {
  return f.severity === "policy-failure" && f.type === "warning"
    ? "warn"
    : (RESULT[f.severity] as Exclude<Result, "pass">);
}

function locationOf(f: Finding): string {
  const l = f.location!;
  const file = l.entry === undefined ? l.file : `${l.file}!${l.entry}`;
  return l.line === undefined ? file : `${file}:${l.line}`;
}

/** A member line at `pad`; nothing for an absent value (as the emitter leaves out undefined members). */
function line(pad: string, key: string, value: string | undefined): string {
  return value === undefined ? "" : `${pad}${key}: ${y(value)}\n`;
}

const P4 = "    ";
const P6 = "      ";
const P8 = "        ";

/**
 * The result's entry, as an item of a `results:` sequence indented two spaces: `source`, `policy`, `result`,
 * `severity`, `category`, `scored`, `message`, `timestamp` (the run's start, `seconds`), `rule`, `resources` (the
 * object), then `properties` (the finding id, first seen, field, ratchet, team, controller, the admission policy's
 * binding, param and validation index, the location, the waiver).
 */
export function resultEntry(f: Finding, seconds: number): string {
  const result = f.severity === "policy-failure" && f.type === "warning" ? "warn" : RESULT[f.severity];
  const severity = SEVERITY[f.severity === "waived" ? (f.waiver?.severity ?? "waived") : f.severity];
  let out =
    `  - source: tollgate\n` +
    line(P4, "policy", f.severity === "input-error" ? "input" : `${f.rule.family}/${f.rule.policy ?? "bundle"}`) +
    line(P4, "result", result) +
    line(P4, "severity", severity) +
    line(P4, "category", f.severity) +
    `${P4}scored: ${f.severity !== "shadow" && f.severity !== "waived"}\n` +
    line(P4, "message", f.field === undefined ? f.message : `${f.field}: ${f.message}`) +
    `${P4}timestamp:\n${P6}seconds: ${yamlNumber(seconds)}\n${P6}nanos: 0\n` +
    line(P4, "rule", f.rule.rule);
  if (f.object !== undefined) {
    const o = f.object;
    out +=
      `${P4}resources:\n${P6}- apiVersion: ${y(o.apiVersion)}\n` +
      line(P8, "kind", o.kind) +
      line(P8, "name", o.name) +
      line(P8, "namespace", o.namespace) +
      line(P8, "uid", o.uid);
  }
  out +=
    `${P4}properties:\n` +
    line(P6, "findingId", f.id) +
    line(P6, "firstSeen", f.firstSeen) +
    line(P6, "field", f.field) +
    line(P6, "ratchet", f.ratchet) +
    line(P6, "team", f.team) +
    line(P6, "controller", f.controller) +
    line(P6, "binding", f.rule.binding) +
    line(P6, "param", f.rule.param) +
    line(P6, "index", f.rule.index === undefined ? undefined : String(f.rule.index)) +
    line(P6, "location", f.location === undefined ? undefined : locationOf(f));
  const w = f.waiver;
  if (w !== undefined) {
    out +=
      line(P6, "waiver", w.name) +
      line(P6, "waiverOwner", w.owner) +
      line(P6, "waiverExpires", w.expires) +
      line(P6, "waiverReason", w.reason) +
      line(P6, "waiverTicket", w.ticket) +
      line(P6, "waiverExpired", w.expired === true ? "true" : undefined);
  }
  return out;
}
