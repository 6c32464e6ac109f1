/**
 * Conformance through the webhook: every case of `<corpus>/cases/vap/cases.json`, with its policies, bindings,
 * params and Namespaces written as a bundle folder, answered by the webhook Lambda's handler (functions/webhook.ts,
 * payload v2) for the AdmissionReview kube-apiserver would send for the case's request. The answer must be the
 * case's: `allowed`, and when denied the Status `code`, `reason` and `message`, the `warnings` and the
 * `auditAnnotations` of the response. The case's static authorizer is given to the bundle load (a folder cannot
 * hold one: the webhook's own default is the RBAC authorizer over the bundle's RBAC objects).
 *
 * The cases known-failures.yaml lists fail here too (the same list as the library's suite).
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import type { FunctionLogger } from "../../../functions/logger.js";
import { createRuntime } from "../../../functions/runtime.js";
import { createHandler } from "../../../functions/webhook.js";
import { loadBundle } from "../../../lib/index.js";
import { admissionReview, event, fakeContext } from "../../helpers/events.js";
import { resolveCorpusRoot } from "../corpus.js";
import { readKnownFailures } from "../crd/known-failures.js";
import {
  bundleFiles,
  differences,
  type Observed,
  readVapCases,
  staticAuthorizer,
  type VapCase,
  type VapRequest,
} from "./cases.js";

const corpusRoot = resolveCorpusRoot();
const cases = readVapCases(corpusRoot);
const known = readKnownFailures(fileURLToPath(new URL("./known-failures.yaml", import.meta.url)));
const scratch = mkdtempSync(join(tmpdir(), "tollgate-vap-webhook-"));

const quiet: FunctionLogger = { info: () => {}, warn: () => {}, error: () => {}, addContext: () => {} };
const OPTIONS_KIND = { CREATE: "CreateOptions", UPDATE: "UpdateOptions", DELETE: "DeleteOptions" } as const;

/** The case's bundle as a folder, one file per document. */
function bundleFolder(c: VapCase, index: number): string {
  const folder = join(scratch, String(index));
  mkdirSync(folder);
  for (const f of bundleFiles(c)) writeFileSync(join(folder, f.path), f.content);
  return folder;
}

/** The AdmissionReview request kube-apiserver sends for the case's request. */
function reviewRequest(r: VapRequest, uid: string): Record<string, unknown> {
  const out: Record<string, unknown> = {
    uid,
    kind: r.kind,
    resource: r.resource,
    requestKind: r.kind,
    requestResource: r.resource,
    operation: r.operation,
    userInfo: r.userInfo,
    object: r.object,
    oldObject: r.oldObject ?? null,
    dryRun: r.dryRun === true,
  };
  if (r.name !== undefined && r.name !== "") out.name = r.name;
  if (r.namespace !== undefined && r.namespace !== "") out.namespace = r.namespace;
  if (r.subResource !== undefined && r.subResource !== "") {
    out.subResource = r.subResource;
    out.requestSubResource = r.subResource;
  }
  if (r.options !== undefined) out.options = r.options;
  else if (r.operation !== "CONNECT") out.options = { apiVersion: "meta.k8s.io/v1", kind: OPTIONS_KIND[r.operation] };
  return out;
}

interface ReviewResponse {
  uid: string;
  allowed: boolean;
  status?: { code?: number; reason?: string; message?: string };
  warnings?: string[];
  auditAnnotations?: Record<string, string>;
}

/** What the corpus records, from the webhook's response. */
function observed(res: ReviewResponse): Observed {
  const out: Observed = {
    allowed: res.allowed,
    warnings: res.warnings ?? [],
    auditAnnotations: res.auditAnnotations ?? {},
  };
  if (!res.allowed && res.status !== undefined) {
    if (res.status.code !== undefined) out.code = res.status.code;
    if (res.status.reason !== undefined) out.reason = res.status.reason;
    if (res.status.message !== undefined) out.message = res.status.message;
  }
  return out;
}

async function answer(c: VapCase, index: number): Promise<ReviewResponse> {
  const folder = bundleFolder(c, index);
  const authorizer = c.authorizer === undefined ? undefined : staticAuthorizer(c.authorizer.rules);
  const runtime = createRuntime(
    { TOLLGATE_BUNDLE: folder },
    {
      logger: quiet,
      load: (source, options) => loadBundle(source, authorizer === undefined ? options : { ...options, authorizer }),
    },
  );
  const handler = createHandler(runtime);
  const uid = `vap-${index}`;
  const res = await handler(event("v2", { body: admissionReview(reviewRequest(c.request, uid)) }), fakeContext());
  expect(res.statusCode).toBe(200);
  const body = JSON.parse(res.body) as { response: ReviewResponse };
  expect(body.response.uid).toBe(uid);
  return body.response;
}

const tally = { passed: 0, knownFailures: 0, failed: 0 };

describe("ValidatingAdmissionPolicy cases through the webhook", () => {
  for (const [i, c] of cases.entries()) {
    it(c.name, async () => {
      const diff = differences(c.expect, observed(await answer(c, i)));
      if (known.has(c.name)) {
        expect(diff.length, "listed in known-failures.yaml but passes through the webhook").toBeGreaterThan(0);
        tally.knownFailures++;
        return;
      }
      if (diff.length > 0) {
        tally.failed++;
        expect.fail(`${c.name} [${c.area}]: ${diff.join("; ")}`);
      }
      tally.passed++;
    });
  }
});

afterAll(() => {
  rmSync(scratch, { recursive: true, force: true });
  console.log(
    `conformance (ValidatingAdmissionPolicy cases, webhook): ${tally.passed + tally.knownFailures + tally.failed} ` +
      `of ${cases.length} cases — ${tally.passed} passed, ${tally.knownFailures} known failures, ${tally.failed} failed`,
  );
});
