/**
 * Gathering the waivers in force: the bundle's Waiver documents (handed over by lib/bundle/classify.ts) and those of
 * the waiver files given beside the bundle (`BundleOptions.waivers`, the auditor's `--waivers`). A waiver that cannot
 * be read, a second waiver of the same name and, in a waiver file, a document that is not a Waiver are policy
 * failures (severity error, tied to no kind: a broken waiver waives nothing, and validation is never weakened by
 * it), with the file, document and the field at fault.
 */
import { unwrapList } from "../objects/list.js";
import { isMapping } from "../objects/mapping.js";
import type { PolicyFailure } from "../policy/types.js";
import { isWaiverDocument, parseWaiver, WAIVER_API_VERSION, WAIVER_KIND, type Waiver } from "./waiver.js";

/** A decoded document of a waiver file (lib/bundle's BundleEntry documents). */
interface WaiverFileDocument {
  object?: unknown;
  error?: string;
  document: number;
}

export class WaiverCollector {
  readonly waivers: Waiver[] = [];
  private readonly seen = new Map<string, Waiver>();

  constructor(private readonly failures: PolicyFailure[]) {}

  /** A Waiver document found at `file`#`document` (`path`: where within it, `items[3]` in a List). */
  add(obj: Record<string, unknown>, file: string, document: number, path = ""): void {
    const parsed = parseWaiver(obj, { file, document });
    if (parsed.errors !== undefined) {
      const name = isMapping(obj.metadata) && typeof obj.metadata.name === "string" ? ` ${obj.metadata.name}` : "";
      for (const e of parsed.errors) this.fail(file, document, path, `Waiver${name}: ${e}`);
      return;
    }
    const w = parsed.waiver;
    const first = this.seen.get(w.name);
    if (first !== undefined) {
      const where = first.file === undefined ? "" : ` in ${first.file}#${first.document ?? 0}`;
      this.fail(file, document, path, `Waiver ${w.name}: a second waiver of that name (the first is${where}): ignored`);
      return;
    }
    this.seen.set(w.name, w);
    this.waivers.push(w);
  }

  /** The documents of a waiver file given beside the bundle: each must be a Waiver (or a List of them). */
  addFile(file: string, documents: readonly WaiverFileDocument[]): void {
    for (const doc of documents) {
      if (doc.error !== undefined) {
        this.fail(file, doc.document, "", doc.error);
        continue;
      }
      const items = unwrapList(doc.object);
      const list = items === undefined ? [[doc.object, ""] as const] : items.map((o, i) => [o, `items[${i}]`] as const);
      for (const [obj, path] of list) {
        if (isMapping(obj) && isWaiverDocument(obj)) {
          this.add(obj, file, doc.document, path);
          continue;
        }
        const what = isMapping(obj) ? `${String(obj.apiVersion)} ${String(obj.kind)}` : "not a mapping";
        this.fail(
          file,
          doc.document,
          path,
          `not a Waiver (${what}): a waivers location holds only ${WAIVER_API_VERSION} ${WAIVER_KIND} documents`,
        );
      }
    }
  }

  private fail(file: string, document: number, path: string, message: string): void {
    const f: PolicyFailure = { severity: "error", family: "config", stage: "config", file, document, message };
    if (path !== "") f.path = path;
    this.failures.push(f);
  }
}
