/**
 * The webhook handler under fuzzed requests (webhook-arbitraries.ts): no HTTP 500 caused by a request, no response
 * over Lambda's limit, no header value with characters HTTP forbids, no planted secret in the response or the
 * logs, 401 for every unauthenticated request, and never "allowed" because tollgate failed internally.
 */
import fc from "fast-check";
import { beforeAll, describe, expect, it } from "vitest";
import { runs, SEED, timeout } from "./budget.js";
import { fuzzRequest } from "./webhook-arbitraries.js";
import { createHarness, type Harness, sendAndCheck } from "./webhook-harness.js";

describe("webhook fuzz", () => {
  let harness: Harness;
  beforeAll(async () => {
    harness = await createHarness();
  });

  it(
    "answers every request within the bounds, without a secret or a fail-open",
    async () => {
      await fc.assert(
        fc.asyncProperty(fuzzRequest, async (r) => {
          const problems = await sendAndCheck(harness, r);
          expect(problems).toEqual([]);
        }),
        { seed: SEED, numRuns: runs(400, 200_000), endOnFailure: true },
      );
    },
    timeout(120_000),
  );
});
