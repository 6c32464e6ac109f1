/**
 * Redaction: reports and responses must not carry secrets. Two layers, one rule for what a credential is.
 *
 * 1. When an error is built (lib/field/error.ts), its bad value is dropped from every field of a core/v1 `Secret`
 *    and from every field whose name says it holds a credential; the message then shows `"<redacted>"`.
 * 2. Texts derived from values (a messageExpression that quotes a credential, a CEL error, a warning) are masked
 *    where every family's results meet (lib/policy/policy-set.ts): the values of the request's credential fields
 *    are replaced by `<redacted>` wherever they occur, raw, Go-quoted or JSON-escaped.
 *
 * The rule (documented in the README, "What tollgate redacts"): a field name is split into lower-case words at
 * case changes, digits, `_`, `-`, `.` and `/` (`sshPrivateKey` → ssh private key, `DB_PASSWORD` → db password). It
 * names a credential when a word is one of {@link CREDENTIAL_WORDS}, or its last word is one of
 * {@link CREDENTIAL_LAST_WORDS} (`basicAuth`, `httpCookie`), or a word is `key`/`keys` right after a word of
 * {@link KEY_QUALIFIERS} (`apiKey`, `tlsKey`, `secretKey`), or the words say "connection string". A name whose last
 * word says it refers to or describes a credential instead of holding one (`secretRef`, `passwordSecretName`,
 * `tokenURL`, `tokenTTL`) is not a credential. So a label selector's `key`, a `configMapKeyRef.key`, `topologyKey`,
 * `sortKey`, `tokenRequests`, `secret.name` and `certificateRefs[0].name` keep their values, as on the API server.
 * Certificates are public: `tlsCert`, `caCertificates` keep theirs (their private keys do not: `tlsKey`).
 *
 * A field is a credential field when its last named segment is a credential name (list items under it included:
 * `tokens[0]`), or the segment before it is a credential collection (the entries of a map: `credentials.db`). Only
 * scalar values are dropped at this layer: an object or list value (`basicAuth: {username, password}`) keeps its
 * shape, and the credential values inside it are masked by the second layer.
 */
import { goQuote } from "../go/strconv.js";

/** Words that make a field name a credential's wherever they stand in it (`dbPassword`, `apiTokens`). */
export const CREDENTIAL_WORDS: ReadonlySet<string> = new Set([
  "password",
  "passwords",
  "passwd",
  "passphrase",
  "secret",
  "secrets",
  "token",
  "tokens",
  "credential",
  "credentials",
  "creds",
  "dsn",
  "kubeconfig",
  "bearer",
  "apikey",
  "privatekey",
  "secretkey",
  "accesskey",
]);

/**
 * Whole names (case-insensitive) of fields that hold credentials without a credential word: KubeVirt's cloud-init
 * user and network data carry passwords and keys.
 */
const CREDENTIAL_NAMES: ReadonlySet<string> = new Set([
  "userdata",
  "userdatabase64",
  "networkdata",
  "networkdatabase64",
]);

/**
 * Words that make a field name a credential's only as its last word (`tlsCert`, `basicAuth`, `httpCookie`), not in
 * `certificateAuthority`, `authURL` or `privateZone`.
 */
export const CREDENTIAL_LAST_WORDS: ReadonlySet<string> = new Set([
  "auth",
  "authorization",
  "cookie",
  "cookies",
  "private",
]);

/** Words that make the `key` after them a credential (`apiKey`, `sshKey`, `tlsKey`), unlike `topologyKey`. */
export const KEY_QUALIFIERS: ReadonlySet<string> = new Set([
  "api",
  "access",
  "secret",
  "private",
  "ssh",
  "tls",
  "ssl",
  "signing",
  "encryption",
  "client",
  "session",
  "master",
  "license",
  "hmac",
  "gpg",
  "pgp",
  "rsa",
  "ecdsa",
  "shared",
  "psk",
]);

/**
 * Last words of names that refer to a credential or describe it without holding it (`secretRef`, `tokenSecretName`,
 * `tokenURL`, `accessTokenMaxAgeSeconds`, `credentialsMode`).
 */
const NOT_HOLDING_WORDS: ReadonlySet<string> = new Set([
  "ref",
  "refs",
  "reference",
  "references",
  "name",
  "names",
  "namespace",
  "selector",
  "path",
  "paths",
  "file",
  "files",
  "dir",
  "url",
  "urls",
  "uri",
  "endpoint",
  "endpoints",
  "ttl",
  "seconds",
  "days",
  "timeout",
  "period",
  "policy",
  "mode",
  "type",
  "enabled",
  "created",
  "config",
  "template",
  "rotation",
  "hash",
  "hashes",
  "length",
  "version",
  "field",
  "from",
  "store",
  "provider",
  "injection",
  "spec",
  "request",
  "requests",
]);

/** Names whose entries or items are credentials whatever their own names (`credentials.db`, `secrets.api`). */
const CREDENTIAL_COLLECTIONS: ReadonlySet<string> = new Set(["credentials", "creds", "passwords", "tokens"]);

/** Whether objects of this apiVersion/kind hold secret values everywhere (core/v1 Secret). */
export function isSecretKind(apiVersion: unknown, kind: unknown): boolean {
  return kind === "Secret" && apiVersion === "v1";
}

/** The lower-case words of a field name. */
export function nameWords(name: string): string[] {
  return name
    .replace(/([a-z0-9])([A-Z])/g, "$1 $2")
    .replace(/([A-Z]+)([A-Z][a-z])/g, "$1 $2")
    .toLowerCase()
    .split(/[^a-z]+/)
    .filter((w) => w.length > 0);
}

/** Answers of {@link isCredentialName}, kept for the names seen (a schema has few; an object may repeat them). */
const answers = new Map<string, boolean>();
const MAX_REMEMBERED = 10_000;

/** Whether a field name (one segment, not a path) says the field holds a credential. */
export function isCredentialName(name: string): boolean {
  // Most names contain none of the words: one test of the raw name answers them.
  if (!CANDIDATE.test(name)) return false;
  let answer = answers.get(name);
  if (answer === undefined) {
    answer = credentialName(name);
    if (answers.size < MAX_REMEMBERED) answers.set(name, answer);
  }
  return answer;
}

/** Every name {@link credentialName} accepts contains one of these (case-insensitive). */
const CANDIDATE = /pass|secret|token|cred|dsn|kubeconfig|bearer|key|auth|cookie|private|connection|data/i;

function credentialName(name: string): boolean {
  if (CREDENTIAL_NAMES.has(name.toLowerCase())) return true;
  const words = nameWords(name);
  const last = words[words.length - 1];
  if (last === undefined || (words.length > 1 && NOT_HOLDING_WORDS.has(last))) return false;
  if (CREDENTIAL_LAST_WORDS.has(last)) return true;
  for (let i = 0; i < words.length; i++) {
    const w = words[i]!;
    if (CREDENTIAL_WORDS.has(w)) return true;
    if ((w === "key" || w === "keys") && i > 0 && KEY_QUALIFIERS.has(words[i - 1]!)) return true;
    if (w === "connection" && (words[i + 1] === "string" || words[i + 1] === "strings")) return true;
  }
  return false;
}

/**
 * The named segments of a field path, in order: `spec.auth.password` → spec, auth, password;
 * `data[tls.key]` → data, tls.key; indices are left out.
 */
function namedSegments(fieldPath: string): string[] {
  const out: string[] = [];
  let i = 0;
  let start = 0;
  const n = fieldPath.length;
  while (i <= n) {
    const c = fieldPath[i];
    if (i === n || c === ".") {
      if (i > start) out.push(fieldPath.slice(start, i));
      start = i + 1;
    } else if (c === "[") {
      if (i > start) out.push(fieldPath.slice(start, i));
      const close = fieldPath.indexOf("]", i);
      const inner = fieldPath.slice(i + 1, close < 0 ? n : close);
      if (!/^\d+$/.test(inner)) out.push(inner);
      i = close < 0 ? n : close;
      start = i + 1;
    }
    i++;
  }
  return out;
}

/** Whether a field path ends at a credential field, or at an entry or item of one ("spec.auth.password"). */
export function isCredentialField(fieldPath: string): boolean {
  const names = namedSegments(fieldPath);
  const last = names[names.length - 1];
  if (last === undefined) return false;
  if (isCredentialName(last)) return true;
  const parent = names[names.length - 2];
  return parent !== undefined && CREDENTIAL_COLLECTIONS.has(parent.toLowerCase());
}

/** Whether a bad value at this field of this object must be redacted. */
export function shouldRedact(secretObject: boolean, fieldPath: string): boolean {
  return secretObject || isCredentialField(fieldPath);
}

/** Values shorter than this are not masked in texts (they would mask ordinary words); their fields still are. */
export const MIN_MASKED_LENGTH = 4;
/** At most this many distinct values are masked per request. */
const MAX_MASKED_VALUES = 256;

/**
 * The string and number values held by credential fields of an object, and by every field of a Secret: what
 * {@link maskSecrets} hides in derived texts. Iterative (no recursion on the object's depth or width).
 */
export function credentialValues(object: unknown, secretObject: boolean, out = new Set<string>()): Set<string> {
  // Parallel stacks (no object per entry): the value, and flags: 1 = it is a credential's, 2 = its entries are (a
  // map under `credentials`).
  const values: unknown[] = [object];
  const flags: number[] = [secretObject ? 3 : 0];
  while (values.length > 0 && out.size < MAX_MASKED_VALUES) {
    const value = values.pop();
    const flag = flags.pop()!;
    if (typeof value === "string" || typeof value === "number" || typeof value === "bigint") {
      if ((flag & 1) !== 0) {
        const text = String(value);
        if (text.length >= MIN_MASKED_LENGTH) out.add(text);
      }
    } else if (Array.isArray(value)) {
      for (let i = 0; i < value.length; i++) {
        const item: unknown = value[i];
        if (typeof item !== "object" || item === null ? (flag & 1) !== 0 : true) {
          values.push(item);
          flags.push(flag);
        }
      }
    } else if (typeof value === "object" && value !== null) {
      const record = value as Record<string, unknown>;
      const inCollection = (flag & 2) !== 0;
      for (const k in record) {
        const v = record[k];
        const credential = inCollection || isCredentialName(k);
        // A scalar that is not a credential's needs no visit.
        if (!credential && (typeof v !== "object" || v === null)) continue;
        values.push(v);
        flags.push((credential ? 1 : 0) | (secretObject || CREDENTIAL_COLLECTIONS.has(k.toLowerCase()) ? 2 : 0));
      }
    }
  }
  return out;
}

/** The forms a value takes in a text: as is, Go-quoted (%q, in messages) and JSON-escaped. */
function maskedForms(values: ReadonlySet<string>): string[] {
  const forms = new Set<string>();
  for (const v of values) {
    forms.add(v);
    forms.add(goQuote(v).slice(1, -1));
    forms.add(JSON.stringify(v).slice(1, -1));
  }
  // Longest first, so a value containing another is masked whole.
  return [...forms].sort((a, b) => b.length - a.length);
}

/** A masker for the texts of one request: replaces every credential value with `<redacted>`. */
export function createMasker(values: ReadonlySet<string>): (text: string) => string {
  if (values.size === 0) return (text) => text;
  const forms = maskedForms(values);
  return (text) => {
    let out = text;
    for (const f of forms) if (out.includes(f)) out = out.split(f).join("<redacted>");
    return out;
  };
}
