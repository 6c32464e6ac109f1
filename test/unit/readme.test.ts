/**
 * What README.md says about the repository stays true: counts it gives are the files' counts.
 */
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { parse } from "yaml";

const read = (path: string) => readFileSync(new URL(`../../${path}`, import.meta.url), "utf8");

describe("README.md", () => {
  it("gives the number of cel-spec known failures that test/conformance/cel-spec/known-failures.yaml lists", () => {
    const listed = Object.keys(parse(read("test/conformance/cel-spec/known-failures.yaml")) as object).length;
    const said = /(\d[\d,]*) of the official cel-spec\s+conformance tests/.exec(read("README.md"))?.[1];
    expect(said?.replace(/,/g, "")).toBe(String(listed));
  });

  it("names the commands beyond npm test", () => {
    const readme = read("README.md");
    for (const command of ["npm run conformance", "npm run test:browser", ".ci/run"]) expect(readme).toContain(command);
  });
});
