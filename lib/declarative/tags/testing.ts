/**
 * validation-gen's test tags, which its own test fixtures use: `+k8s:validateFalse="<msg>"` always fails
 * (`forced failure: <msg>`), `+k8s:validateTrue` (and its Alpha / Beta spellings) never does; both take
 * `flags: "ShortCircuit,NonError"`. `+k8s:validateError` makes the generator itself fail: a compile problem.
 */
import * as V from "../validators.js";
import { stringArg, type TagCall, type TagTable } from "./context.js";

function flags(call: TagCall): string[] {
  return (stringArg(call.tag, "flags") ?? "").split(",").map((s) => s.trim());
}

function message(call: TagCall): string {
  return call.tag.value?.kind === "string" ? call.tag.value.value : "";
}

function validateFalse(call: TagCall): void {
  const f = flags(call);
  call.add(V.validateFalse(message(call), f.includes("ShortCircuit"), f.includes("NonError"), call.rule));
}

function validateTrue(call: TagCall): void {
  call.add(V.validateTrue(flags(call).includes("ShortCircuit"), call.rule));
}

function validateError(call: TagCall): void {
  call.problem(`forced error: ${message(call)}`);
}

export const TESTING_TAGS: TagTable = {
  validateFalse: { compile: validateFalse },
  validateTrue: { compile: validateTrue },
  validateTrueAlpha: { compile: validateTrue },
  validateTrueBeta: { compile: validateTrue },
  validateError: { compile: validateError },
};
