/**
 * The bundle artifact: a whole bundle in one pre-decoded JSON file, so that a cold start parses JSON (fast) instead
 * of YAML (slow). `tollgate bundle build` writes it (build.ts); loadBundle recognises it by content and compiles
 * it as it would compile the folder it came from: same digest, same kinds, same failures, same verdicts.
 *
 * ```json
 * {"apiVersion":"tollgate.dev/v1alpha1","kind":"BundleArtifact","format":2,
 *  "tollgate":"0.1.0",                             // the tollgate version that built it
 *  "digest":"sha256:…",                           // the source bundle's digest (PolicySet.digest)
 *  "build":{"kinds":[…],"failures":[…],"config":{…}},   // what compiling every rule at build time found
 *  "files":[
 *    {"path":"crds/widgets.yaml","documents":[{"document":0,"line":1,"object":{…}},
 *                                             {"document":1,"line":40,"error":"document 1 (line 40): …"}]},
 *    {"path":"api/v1/types.go","content":"package v1\n…"}]}
 * ```
 *
 * - `files` keeps the bundle's files in order. YAML and JSON files carry their documents already decoded by the
 *   lossless decoder (an undecodable document keeps its error); other files (Go sources, go.mod) carry their text:
 *   the declarative family parses Go itself and offers no entry point for an already-parsed model, so Go packages
 *   are parsed at load (tree-sitter, WebAssembly).
 * - Integers beyond ±(2^53−1) are bigints in decoded objects; JSON has no such type, so they are written as decimal
 *   strings and listed in the document's `bigints` (paths of keys and indexes), restored at load.
 * - `build` is what compiling every rule at build time found. Loading compiles the rules again (compiled CEL
 *   programs cannot be serialised), but only as they are used, and takes from `build` the failures (and, for CRDs,
 *   the kinds) a lazy compile does not find by itself. A reader (a dashboard, `jq`) can see the kinds and failures
 *   without compiling.
 * - `tollgate` is the version that built it. Both the pre-decoded documents (the decoder's output) and `build` (the
 *   compiler's findings) are that version's results, which another version may not reproduce (a decoding or compile
 *   fix between versions). So an artifact is only read by the version that built it; any other refuses it with an
 *   error-severity policy failure of every kind (fail closed), saying to rebuild it.
 */
import type { DecodedDocument } from "../objects/decode.js";
import { parseDocuments } from "../objects/decode.js";
import type { BuildRecord } from "../policy/family.js";
import {
  type BundleFile,
  type CoveredKind,
  EVERY_KIND,
  type PolicyFailure,
  type ResolvedBundleConfig,
} from "../policy/types.js";
import { TOLLGATE_VERSION } from "../version.js";
import { bundleDigest } from "./source.js";

export const ARTIFACT_API_VERSION = "tollgate.dev/v1alpha1";
export const ARTIFACT_KIND = "BundleArtifact";
/**
 * Bumped when the artifact's layout changes; loadBundle refuses other formats with a policy failure. Format 2 added
 * `tollgate` (format 1 artifacts did not say which version built them).
 */
export const ARTIFACT_FORMAT = 2;

/** A path into a decoded object: mapping keys and sequence indexes. */
export type ValuePath = (string | number)[];

export type ArtifactDocument =
  | { document: number; line: number; object: Record<string, unknown>; bigints?: ValuePath[] }
  | { document: number; line: number; error: string };

export type ArtifactFile = { path: string; documents: ArtifactDocument[] } | { path: string; content: string };

export interface BundleArtifact {
  apiVersion: typeof ARTIFACT_API_VERSION;
  kind: typeof ARTIFACT_KIND;
  format: typeof ARTIFACT_FORMAT;
  /** The tollgate version that built it: the only one that reads it. */
  tollgate: string;
  /** The source bundle's digest, which a PolicySet loaded from the artifact reports. */
  digest: string;
  build: {
    kinds: readonly CoveredKind[];
    failures: readonly PolicyFailure[];
    config: ResolvedBundleConfig;
  };
  files: ArtifactFile[];
}

/** One file of a bundle as the loader walks it: decoded documents for YAML/JSON, the file alone otherwise. */
export interface BundleEntry {
  file: BundleFile;
  documents?: readonly DecodedDocument[];
}

/** What the loader reads from a source: its entries, digest, and problems with the artifact itself. */
export interface DecodedBundle {
  digest: string;
  entries: BundleEntry[];
  failures: PolicyFailure[];
  /** What the artifact's build recorded: its kinds and policy failures (artifacts only). */
  built?: BuildRecord;
}

const DOCUMENT_FILE = /\.(ya?ml|json)$/i;

/** Decodes the YAML and JSON files of a bundle (the other files are left to the families). */
export function decodeEntries(
  files: readonly BundleFile[],
  limits: { maxBytes: number; maxDepth: number; maxBytesSetting?: string },
): BundleEntry[] {
  return files.map((file) =>
    DOCUMENT_FILE.test(file.path) ? { file, documents: parseDocuments(file.content, limits) } : { file },
  );
}

/**
 * The bundle as the loader walks it: an artifact's pre-decoded entries when `files` is one artifact, otherwise
 * the files decoded now.
 */
export function decodeBundle(
  files: readonly BundleFile[],
  limits: { maxBytes: number; maxDepth: number; maxBytesSetting?: string },
): DecodedBundle {
  const only = files.length === 1 ? files[0]! : undefined;
  if (only !== undefined && isArtifactText(only.content)) return readArtifact(only);
  return { digest: bundleDigest(files), entries: decodeEntries(files, limits), failures: [] };
}

/**
 * Whether a text is an artifact: a JSON object whose `kind` (within its first 512 characters, where the build
 * writes it) is BundleArtifact. Cheap: nothing is parsed.
 */
export function isArtifactText(text: string): boolean {
  let i = 0;
  while (i < text.length && (text[i] === " " || text[i] === "\n" || text[i] === "\r" || text[i] === "\t")) i++;
  if (text[i] !== "{") return false;
  return /"kind"\s*:\s*"BundleArtifact"/.test(text.slice(i, i + 512));
}

/** Writes an artifact as compact JSON, `apiVersion` and `kind` first (how loaders recognise it). */
export function serializeArtifact(artifact: BundleArtifact): string {
  return JSON.stringify(artifact, (_key, value: unknown) => (typeof value === "bigint" ? value.toString() : value));
}

/** The artifact form of a bundle's decoded entries. */
export function artifactFiles(entries: readonly BundleEntry[]): ArtifactFile[] {
  return entries.map(({ file, documents }) => {
    if (documents === undefined) return { path: file.path, content: file.content };
    return {
      path: file.path,
      documents: documents.map((d): ArtifactDocument => {
        if (d.error !== undefined) return { document: d.document, line: d.line, error: d.error };
        const object = d.object as Record<string, unknown>;
        const bigints: ValuePath[] = [];
        collectBigints(object, [], bigints);
        return bigints.length === 0
          ? { document: d.document, line: d.line, object }
          : { document: d.document, line: d.line, object, bigints };
      }),
    };
  });
}

function collectBigints(value: unknown, path: ValuePath, out: ValuePath[]): void {
  if (typeof value === "bigint") {
    out.push([...path]);
    return;
  }
  if (typeof value !== "object" || value === null) return;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      path.push(i);
      collectBigints(value[i], path, out);
      path.pop();
    }
    return;
  }
  for (const key of Object.keys(value)) {
    path.push(key);
    collectBigints((value as Record<string, unknown>)[key], path, out);
    path.pop();
  }
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

class MalformedArtifact extends Error {}

/**
 * Reads an artifact file. A malformed artifact (not JSON, another format, a wrong shape) is not thrown: it is an
 * error-severity config failure, and the bundle is empty, as for a YAML file that does not parse.
 */
export function readArtifact(file: BundleFile): DecodedBundle {
  try {
    let raw: unknown;
    try {
      raw = JSON.parse(file.content);
    } catch (e) {
      throw new MalformedArtifact(`not JSON: ${e instanceof Error ? e.message : String(e)}`);
    }
    if (!isRecord(raw) || raw.apiVersion !== ARTIFACT_API_VERSION || raw.kind !== ARTIFACT_KIND)
      throw new MalformedArtifact(`expected apiVersion ${ARTIFACT_API_VERSION}, kind ${ARTIFACT_KIND}`);
    if (raw.format !== ARTIFACT_FORMAT)
      throw new MalformedArtifact(
        `format ${JSON.stringify(raw.format)} is not supported (this tollgate reads format ${ARTIFACT_FORMAT}): rebuild it with tollgate bundle build`,
      );
    if (raw.tollgate !== TOLLGATE_VERSION)
      throw new MalformedArtifact(
        `built by tollgate ${JSON.stringify(raw.tollgate)}, and this is tollgate ${TOLLGATE_VERSION}: an artifact holds its build's decoded documents and compile results, so only the version that built it serves it: rebuild it with tollgate bundle build`,
      );
    if (typeof raw.digest !== "string") throw new MalformedArtifact("digest: must be a string");
    if (!Array.isArray(raw.files)) throw new MalformedArtifact("files: must be a list");
    const entries = raw.files.map((f: unknown, i: number) => readEntry(f, `files[${i}]`));
    const build = isRecord(raw.build) ? raw.build : {};
    const built: BuildRecord = {
      kinds: Array.isArray(build.kinds) ? (build.kinds as CoveredKind[]) : [],
      failures: Array.isArray(build.failures) ? (build.failures as PolicyFailure[]) : [],
    };
    return { digest: raw.digest, entries, failures: [], built };
  } catch (e) {
    if (!(e instanceof MalformedArtifact)) throw e;
    return {
      digest: bundleDigest([file]),
      entries: [],
      failures: [
        {
          severity: "error",
          family: "config",
          file: file.path,
          // The bundle is empty: the policy of any kind may have been in it.
          kinds: [EVERY_KIND],
          message: `malformed bundle artifact: ${e.message}`,
        },
      ],
    };
  }
}

function readEntry(f: unknown, where: string): BundleEntry {
  if (!isRecord(f) || typeof f.path !== "string") throw new MalformedArtifact(`${where}.path: must be a string`);
  if (typeof f.content === "string") return { file: { path: f.path, content: f.content } };
  if (!Array.isArray(f.documents)) throw new MalformedArtifact(`${where}: needs documents or content`);
  const documents = f.documents.map((d: unknown, j: number): DecodedDocument => {
    const at = `${where}.documents[${j}]`;
    if (!isRecord(d) || typeof d.document !== "number" || typeof d.line !== "number")
      throw new MalformedArtifact(`${at}: needs document and line numbers`);
    if (typeof d.error === "string") return { document: d.document, line: d.line, error: d.error };
    if (!isRecord(d.object)) throw new MalformedArtifact(`${at}.object: must be a mapping`);
    if (d.bigints !== undefined) restoreBigints(d.object, d.bigints, at);
    return { document: d.document, line: d.line, object: d.object };
  });
  return { file: { path: f.path, content: "" }, documents };
}

function restoreBigints(object: Record<string, unknown>, paths: unknown, at: string): void {
  if (!Array.isArray(paths)) throw new MalformedArtifact(`${at}.bigints: must be a list of paths`);
  for (const path of paths) {
    if (!Array.isArray(path) || path.length === 0) throw new MalformedArtifact(`${at}.bigints: bad path`);
    let parent: unknown = object;
    for (let i = 0; i < path.length - 1; i++) parent = (parent as Record<string | number, unknown>)?.[path[i]];
    const last = path[path.length - 1] as string | number;
    const holder = parent as Record<string | number, unknown> | undefined;
    const text = holder?.[last];
    if (typeof text !== "string" || !/^-?[0-9]+$/.test(text))
      throw new MalformedArtifact(`${at}.bigints: ${JSON.stringify(path)} is not an integer string`);
    holder![last] = BigInt(text);
  }
}
