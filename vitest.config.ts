import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    projects: [
      { test: { name: "unit", include: ["test/unit/**/*.test.ts"], environment: "node" } },
      { test: { name: "e2e", include: ["test/e2e/**/*.test.ts"], environment: "node", testTimeout: 60_000 } },
      // npm test runs a small budget of each property; npm run fuzz (TOLLGATE_FUZZ=long) the long one.
      { test: { name: "fuzz", include: ["test/fuzz/**/*.test.ts"], environment: "node", testTimeout: 120_000 } },
      {
        // npm run test:browser: needs /usr/bin/chromium (Debian's package; .ci/run installs it), so not in npm test.
        test: { name: "browser", include: ["test/browser/**/*.test.ts"], environment: "node", testTimeout: 60_000 },
      },
      {
        test: {
          name: "conformance",
          include: ["test/conformance/**/*.test.ts"],
          environment: "node",
          testTimeout: 120_000,
        },
      },
    ],
    coverage: { provider: "v8", include: ["lib/**", "audit/**"] },
  },
});
