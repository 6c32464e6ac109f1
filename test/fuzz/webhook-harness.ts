/**
 * The webhook fuzz's handlers (one without auth, one with a token) over the fuzz bundle (test/fixtures/bundles/
 * secrets, failure policy Ignore, plus the example Widget CRD), with a logger that keeps every line, and the checks
 * every answer must pass.
 */
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import type { FunctionLogger } from "../../functions/logger.js";
import { createRuntime } from "../../functions/runtime.js";
import { createHandler, type Handler } from "../../functions/webhook.js";
import { type BundleFile, loadBundle } from "../../lib/index.js";
import { event, fakeContext, v1Event, v2Event } from "../helpers/events.js";
import { hasPlanted } from "./planted.js";
import { type FuzzRequest, TOKEN } from "./webhook-arbitraries.js";

const SECRETS = fileURLToPath(new URL("../fixtures/bundles/secrets", import.meta.url));
const EXAMPLES = fileURLToPath(new URL("../../examples/policies", import.meta.url));

/** Lambda's limit on a synchronous invocation's response (the whole proxy result as JSON). */
export const LAMBDA_RESPONSE_BYTES = 6 * 1024 * 1024;
/** A bound on all response headers together, far below what API Gateway and Lambda accept. */
export const HEADER_BYTES = 16 * 1024;
/** Characters an HTTP header value may carry as tollgate sends them: visible ASCII, space and tab. */
const HEADER_VALUE = /^[\t\x20-\x7e]*$/;
/** A bound on one log line (JSON), far below CloudWatch's 256 KB event limit. */
export const LOG_LINE_BYTES = 16 * 1024;

function files(folder: string, prefix: string, skip: (name: string) => boolean): BundleFile[] {
  return readdirSync(folder)
    .filter((f) => /\.ya?ml$/.test(f) && !skip(f))
    .map((f) => ({ path: `${prefix}/${f}`, content: readFileSync(join(folder, f), "utf8") }));
}

export const FUZZ_BUNDLE: BundleFile[] = [
  ...files(SECRETS, "secrets", () => false),
  ...files(EXAMPLES, "examples", (f) => f === "tollgate.yaml"),
];

export interface Recorded {
  lines: string[];
}

function recordingLogger(rec: Recorded): FunctionLogger {
  const line =
    (level: string) =>
    (message: string, attributes: Record<string, unknown> = {}) => {
      rec.lines.push(
        JSON.stringify({ level, message, ...attributes }, (_k, v) => (typeof v === "bigint" ? `${v}` : v)),
      );
    };
  return { info: line("INFO"), warn: line("WARN"), error: line("ERROR"), addContext: () => {} };
}

export interface Harness {
  open: Handler;
  guarded: Handler;
  logs: Recorded;
}

export async function createHarness(): Promise<Harness> {
  const logs: Recorded = { lines: [] };
  const load = () => loadBundle(FUZZ_BUNDLE);
  const open = createRuntime({}, { logger: recordingLogger(logs), load });
  const guarded = createRuntime({ TOLLGATE_TOKEN: TOKEN }, { logger: recordingLogger(logs), load });
  await open.policySet();
  await guarded.policySet();
  return { open: createHandler(open), guarded: createHandler(guarded), logs };
}

/** Sends one fuzz request and checks the answer; returns the problems found (empty when the answer is sound). */
export async function sendAndCheck(h: Harness, r: FuzzRequest): Promise<string[]> {
  h.logs.lines.length = 0;
  const e = event(r.payload, r.spec);
  if (r.rawBase64 !== undefined) {
    const withRaw = r.payload === "v1" ? v1Event(r.spec) : v2Event(r.spec);
    withRaw.body = r.rawBase64;
    withRaw.isBase64Encoded = true;
    Object.assign(e, withRaw);
  }
  const handler = r.withToken ? h.guarded : h.open;
  const res = await handler(e, fakeContext());
  const problems: string[] = [];
  const whole = JSON.stringify(res);
  if (res.statusCode === 500) problems.push(`HTTP 500: ${res.body.slice(0, 300)}`);
  if (Buffer.byteLength(whole) > LAMBDA_RESPONSE_BYTES) problems.push(`response of ${whole.length} characters`);
  let headerBytes = 0;
  for (const [name, value] of Object.entries(res.headers)) {
    headerBytes += name.length + value.length + 4;
    if (!HEADER_VALUE.test(value)) problems.push(`header ${name} carries forbidden characters: ${value.slice(0, 80)}`);
  }
  if (headerBytes > HEADER_BYTES) problems.push(`headers of ${headerBytes} bytes`);
  if (hasPlanted(whole)) problems.push(`planted secret in the response: ${excerpt(whole)}`);
  for (const line of h.logs.lines) {
    if (hasPlanted(line)) problems.push(`planted secret in a log line: ${excerpt(line)}`);
    if (line.length > LOG_LINE_BYTES) problems.push(`log line of ${line.length} characters`);
  }
  if (r.withToken && r.auth !== "right" && r.spec.path === "/validate" && r.spec.method === "POST") {
    if (res.statusCode !== 401) problems.push(`unauthenticated request answered ${res.statusCode}, not 401`);
  }
  if (res.statusCode === 200 && res.body.includes('"AdmissionReview"')) {
    const review = JSON.parse(res.body) as { response?: { allowed?: boolean; warnings?: string[] } };
    const faultAllowed = review.response?.warnings?.some((w) => w.includes("tollgate's failure policy is Ignore"));
    if (review.response?.allowed === true && faultAllowed === true) {
      problems.push(`allowed under Ignore after an internal fault: ${review.response.warnings?.join(" | ")}`);
    }
  }
  return problems;
}

function excerpt(text: string): string {
  const at = text.indexOf("PLANTED");
  return text.slice(Math.max(0, at - 150), at + 60);
}
