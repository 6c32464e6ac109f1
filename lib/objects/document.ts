/** One document of an input stream, decoded or not. */
export interface DecodedDocument {
  /** The decoded Kubernetes object (a mapping); absent when `error` is set. */
  object?: unknown;
  /** What is wrong with the document and where, e.g. `document 2 (line 14): …`; absent on success. */
  error?: string;
  /** 0-based index of the document in the stream, counting empty documents too. */
  document: number;
  /** 1-based line where the document's content starts. */
  line: number;
}

/**
 * A problem found while decoding one document. Thrown inside the decoders and turned into
 * {@link DecodedDocument.error} at their entry points; it never leaves this module.
 */
export class DecodeFailure extends Error {
  override readonly name = "DecodeFailure";
  /** Offset (UTF-16 code units) into the text being decoded, when the problem has a place. */
  readonly offset: number | undefined;

  constructor(message: string, offset?: number) {
    super(message);
    this.offset = offset;
  }
}

/** The failed-document shape, with the message prefix every edge shows. */
export function failedDocument(document: number, line: number, detail: string): DecodedDocument {
  return { error: `document ${document} (line ${line}): ${detail}`, document, line };
}

/** The word for a decoded value's shape in "expected a Kubernetes object (a mapping), got …". */
export function describeShape(value: unknown): string {
  if (Array.isArray(value)) return "a sequence";
  switch (typeof value) {
    case "string":
      return "a string";
    case "number":
    case "bigint":
      return "a number";
    case "boolean":
      return "a boolean";
    default:
      return value === null ? "null" : "a mapping";
  }
}

export function notAnObject(value: unknown): string {
  return `expected a Kubernetes object (a mapping), got ${describeShape(value)}`;
}
