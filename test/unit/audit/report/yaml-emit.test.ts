/**
 * The policy reports' YAML emitter: whatever it writes reads back as the same data with lib's decoder (which
 * resolves scalars as kubectl's sigs.k8s.io/yaml does) and with the `yaml` package under YAML 1.1 and 1.2.
 */
import { describe, expect, it } from "vitest";
import { parse } from "yaml";
import { yamlDocument, yamlString } from "../../../../audit/report/yaml-emit.js";
import { parseDocuments } from "../../../../lib/index.js";

const TRICKY = [
  "plain",
  "",
  " leading",
  "trailing ",
  "a: b",
  "a:b",
  "key:",
  "x #comment",
  "x#y",
  "#start",
  "- dash",
  "-",
  "? q",
  "true",
  "False",
  "yes",
  "NO",
  "on",
  "Off",
  "y",
  "n",
  "null",
  "~",
  "<<",
  "=",
  "12",
  "-12",
  "+1",
  "1e3",
  "0x1F",
  "0o17",
  "017",
  ".5",
  ".inf",
  "-.inf",
  ".nan",
  "1:20",
  "2026-11-22T02:15:00.000Z",
  "2026-11-22",
  "20261122T021500Z",
  "sha256:c743999cb4c6a489",
  "line\nbreak",
  "tab\there",
  "quote ' and \" inside",
  "'single'",
  '"double"',
  "[flow]",
  "{flow}",
  "a, b",
  "*alias",
  "&anchor",
  "!tag",
  "|block",
  ">folded",
  "%directive",
  "@at",
  "`tick",
  "é unicode ✓",
  "back\\slash",
  "\u0000nul\u0007bell",
  "spec.validation.openAPIV3Schema.properties[spec].x-kubernetes-validations[0].rule",
  "<nil>: Internal error",
  "app.kubernetes.io/managed-by",
];

describe("yaml-emit", () => {
  it("writes every string so that it reads back as that string", () => {
    const doc = {
      strings: TRICKY,
      keys: Object.fromEntries(TRICKY.filter((s) => s !== "").map((s, i) => [s, i])),
      nested: [{ a: 1, b: [true, false, null], c: { d: "e", f: [] }, g: {} }, [1, [2]], "x"],
      numbers: [0, -1, 1.5, 1795313700],
    };
    const text = yamlDocument(doc);
    const decoded = parseDocuments(text);
    expect(decoded).toHaveLength(1);
    expect(decoded[0]!.error).toBeUndefined();
    expect(decoded[0]!.object).toEqual(doc);
    expect(parse(text, { version: "1.2" })).toEqual(doc);
    expect(parse(text, { version: "1.1" })).toEqual(doc);
  });

  it("writes simple words plain, other one-line text single-quoted, the rest as JSON strings", () => {
    expect(yamlString("tollgate")).toBe("tollgate");
    expect(yamlString("crd/widgets.audit.tollgate.dev")).toBe("crd/widgets.audit.tollgate.dev");
    expect(yamlString("yes")).toBe("'yes'");
    expect(yamlString("it's: x")).toBe("'it''s: x'");
    expect(yamlString("12")).toBe("'12'");
    expect(yamlString("two\nlines")).toBe('"two\\nlines"');
  });

  it("writes a string plain exactly when the rules say it may (a table scan, checked against the rules as patterns)", () => {
    // The rules as written: PLAIN characters only, a safe start, not a reserved word, no `: ` or ` #`, no trailing
    // `:` or space.
    const byPatterns = (s: string): boolean =>
      s !== "" &&
      !/^[-?:,[\]{}#&*!|>'"%@`0-9+.~ ]/.test(s) &&
      /^[A-Za-z0-9_./\-:@()<>=,;+*'"[\]{}$^!?%&|~ ]+$/.test(s) &&
      !/^(?:y|Y|yes|Yes|YES|n|N|no|No|NO|true|True|TRUE|false|False|FALSE|on|On|ON|off|Off|OFF|null|Null|NULL|<<|=)$/.test(
        s,
      ) &&
      !s.includes(": ") &&
      !s.includes(" #") &&
      !s.endsWith(":") &&
      !s.endsWith(" ");
    const alphabet = [...Array.from({ length: 128 }, (_, c) => String.fromCharCode(c)), "é", "✓", "\u2028", "😀"];
    let seed = 7;
    const next = (n: number): number => {
      seed = (seed * 1103515245 + 12345) % 2147483648;
      return seed % n;
    };
    const samples = [...TRICKY, "on:", "a :b", "a: ", "ok ", "abcdef", "nulls", "Yes1"];
    for (let i = 0; i < 20_000; i++) {
      // Mostly characters a plain scalar may hold, so that plain strings are common among the samples.
      const len = 1 + next(8);
      let s = "";
      for (let j = 0; j < len; j++) s += next(4) === 0 ? alphabet[next(alphabet.length)] : "ab:- #.yesNo"[next(12)];
      samples.push(s);
    }
    let plain = 0;
    for (const s of samples) {
      expect(yamlString(s) === s, JSON.stringify(s)).toBe(byPatterns(s));
      if (byPatterns(s)) plain++;
    }
    expect(plain).toBeGreaterThan(1000);
  });
});
