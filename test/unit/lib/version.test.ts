/**
 * The version compiled into every build (lib/version.ts) is package.json's: reports, `--version` and bundle
 * artifacts say the version that was released.
 */
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { TOLLGATE_VERSION } from "../../../lib/version.js";

describe("TOLLGATE_VERSION", () => {
  it("is package.json's version", () => {
    const pkg = JSON.parse(readFileSync(new URL("../../../package.json", import.meta.url), "utf8")) as {
      version: string;
    };
    expect(TOLLGATE_VERSION).toBe(pkg.version);
  });
});
