/**
 * Decoding the undecoded parts of a unit (`SourceUnit.raw`), on a worker thread or the main thread alike: each part
 * gives the docs the unit's `stream()` gives for it.
 */
import { decodeText } from "./decode.js";
import { decodeJsonItem } from "./stream-json.js";
import { decodePiece, toSourceDocs } from "./stream-yaml.js";
import type { RawPart, SourceDoc } from "./types.js";

/**
 * The docs of a part of {@link SourceUnit.raw}, as the unit's `stream()` gives them; `nested` for a List item that
 * is itself a List (its items are numbered after the top-level ones: the caller decodes that unit again with
 * `stream()`, which holds nested Lists until the end).
 */
export function decodeRawPart(part: RawPart): SourceDoc[] | "nested" | "reparse" {
  switch (part.kind) {
    case "reparse":
      return "reparse";
    case "docs":
      return part.docs;
    case "text":
      return decodeText(part.text, part.base, part.options);
    case "yaml": {
      const { docs } = decodePiece(part.piece, part.index, part.first, part.options);
      return docs.flatMap((d) => toSourceDocs(d, part.base, part.options, part.piece));
    }
    case "json-item": {
      const r = decodeJsonItem(part.raw, part.elementLine, part.column, part.list, part.item);
      if ("nested" in r) return part.list.whole === true ? "reparse" : "nested";
      if ("bad" in r) return part.list.whole === true ? "reparse" : [r.bad];
      return [r];
    }
  }
}
