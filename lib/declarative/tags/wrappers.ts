/**
 * Tags that wrap another tag: the lifecycle prefixes `+k8s:alpha` / `+k8s:beta` (the payload's errors are shadowed,
 * or enforced per the DeclarativeValidationBeta gate; spec/declarative-validation-behaviour.md section 8) and the
 * option conditions `+k8s:ifEnabled(Option)` / `+k8s:ifDisabled(Option)` (the payload runs only when the
 * option is on, or off; options are the bundle's feature gates).
 */
import * as V from "../validators.js";
import { payloadName, positional, type TagCall, type TagTable } from "./context.js";

function lifecycle(call: TagCall): void {
  const p = call.payload();
  if (p === undefined) return;
  if (call.site.level !== "standard") call.problem("+k8s:alpha and +k8s:beta must be the outermost prefix", "warning");
  call.compilePayload(p, { level: call.name === "alpha" ? "alpha" : "beta" });
}

function option(call: TagCall): void {
  const opt = positional(call.tag);
  const p = call.payload();
  if (opt === undefined || opt.kind !== "string" || opt.value === "") {
    call.problem("needs the option name as its only argument");
    return;
  }
  if (p === undefined) return;
  const name = opt.value;
  const enabled = call.name === "ifEnabled";
  const pn = payloadName(p);
  if (pn === "subfield" || pn === "item") {
    // Groups run as a whole: the condition wraps each group the payload adds.
    const groups = call.site.acc.groups;
    const before = groups.length;
    call.compilePayload(p);
    for (let i = before; i < groups.length; i++) {
      const g = groups[i]!;
      groups[i] = (r, path, v, ov, out) => {
        if ((r.gates[name] === true) === enabled) g(r, path, v, ov, out);
      };
    }
    return;
  }
  const d = call.host.definition(pn);
  if (d !== undefined && (d.listMeta !== undefined || d.member !== undefined || d.underOption === false)) {
    call.problem(`+k8s:${pn} cannot be used inside +k8s:${call.name}`);
    return;
  }
  const wrap = call.site.wrap;
  call.compilePayload(p, { wrap: (v) => wrap(V.ifOption(name, enabled, v, call.rule)) });
}

export const WRAPPER_TAGS: TagTable = {
  alpha: { compile: lifecycle },
  beta: { compile: lifecycle },
  ifEnabled: { compile: option },
  ifDisabled: { compile: option },
};
