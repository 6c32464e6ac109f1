/**
 * Levels, versions and the namespace policy (k8s.io/pod-security-admission api/helpers.go): parsing, the fallbacks
 * of invalid labels (enforce fails closed, audit and warn fail open, versions fall back to latest) and warn
 * following an explicitly stricter enforce level.
 */
import { describe, expect, it } from "vitest";
import {
  compareLevels,
  LABELS,
  type Policy,
  parseLevel,
  parseVersion,
  policyName,
  policyToEvaluate,
} from "../../../../lib/pod-security/levels.js";

const lv = (level: "privileged" | "baseline" | "restricted", v: string) => ({ level, version: parseVersion(v).value });
const PRIVILEGED: Policy = {
  enforce: lv("privileged", "latest"),
  audit: lv("privileged", "latest"),
  warn: lv("privileged", "latest"),
};

function names(p: Policy) {
  return { enforce: policyName(p.enforce), audit: policyName(p.audit), warn: policyName(p.warn) };
}

describe("levels and versions", () => {
  it.each([
    { text: "latest", want: "latest", error: false },
    { text: "v1.0", want: "v1.0", error: false },
    { text: "v1.25", want: "v1.25", error: false },
    { text: "v1.99999999999999999", want: "v1.99999999999999999", error: false },
    { text: "v1.05", want: "latest", error: true },
    { text: "v2.0", want: "latest", error: true },
    { text: "1.25", want: "latest", error: true },
    { text: "v1.99999999999999999999", want: "latest", error: true },
    { text: "", want: "latest", error: true },
  ])("version $text", ({ text, want, error }) => {
    const p = parseVersion(text);
    expect(p.value.text).toBe(want);
    expect(p.error).toBe(error ? 'must be "latest" or "v1.x"' : undefined);
  });

  it("an unknown level reads as restricted, with the library's error", () => {
    expect(parseLevel("Restricted")).toEqual({
      value: "restricted",
      error: "must be one of privileged, baseline, restricted",
    });
    expect(compareLevels("baseline", "restricted")).toBe(-1);
    expect(compareLevels("restricted", "privileged")).toBe(1);
  });
});

describe("policyToEvaluate", () => {
  it.each<{ name: string; labels: Record<string, string>; want: Record<string, string>; errors: string[] }>([
    {
      name: "no labels: the defaults",
      labels: {},
      want: { enforce: "privileged:latest", audit: "privileged:latest", warn: "privileged:latest" },
      errors: [],
    },
    {
      name: "warn follows an explicit, stricter enforce level and its version",
      labels: { [LABELS.enforce]: "baseline", [LABELS.enforceVersion]: "v1.30" },
      want: { enforce: "baseline:v1.30", audit: "privileged:latest", warn: "baseline:v1.30" },
      errors: [],
    },
    {
      name: "warn keeps its own version label",
      labels: { [LABELS.enforce]: "restricted", [LABELS.warnVersion]: "v1.20" },
      want: { enforce: "restricted:latest", audit: "privileged:latest", warn: "restricted:v1.20" },
      errors: [],
    },
    {
      name: "an explicit warn level is kept",
      labels: { [LABELS.enforce]: "restricted", [LABELS.warn]: "baseline" },
      want: { enforce: "restricted:latest", audit: "privileged:latest", warn: "baseline:latest" },
      errors: [],
    },
    {
      name: "an invalid enforce level is restricted (and warn does not follow it)",
      labels: { [LABELS.enforce]: "strict" },
      want: { enforce: "restricted:latest", audit: "privileged:latest", warn: "privileged:latest" },
      errors: [`${LABELS.enforce}=strict`],
    },
    {
      name: "invalid audit and warn levels are privileged",
      labels: { [LABELS.audit]: "x", [LABELS.warn]: "y", [LABELS.warnVersion]: "v1.2.3" },
      want: { enforce: "privileged:latest", audit: "privileged:latest", warn: "privileged:latest" },
      errors: [`${LABELS.audit}=x`, `${LABELS.warn}=y`, `${LABELS.warnVersion}=v1.2.3`],
    },
  ])("$name", ({ labels, want, errors }) => {
    const got = policyToEvaluate(labels, PRIVILEGED);
    expect(names(got.policy)).toEqual(want);
    expect(got.errors.map((e) => `${e.label}=${e.value}`)).toEqual(errors);
  });

  it("labels over configured defaults", () => {
    const defaults: Policy = {
      enforce: lv("baseline", "v1.29"),
      audit: lv("restricted", "latest"),
      warn: lv("restricted", "latest"),
    };
    const got = policyToEvaluate({ [LABELS.enforceVersion]: "v1.31" }, defaults);
    expect(names(got.policy)).toEqual({
      enforce: "baseline:v1.31",
      audit: "restricted:latest",
      warn: "restricted:latest",
    });
  });
});
