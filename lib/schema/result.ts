/**
 * What one kube-openapi validation pass collects (k8s.io/kube-openapi pkg/validation/validate's Result): the errors
 * in the order they were found, kept unique by text, the errors ratcheting suppressed, and the match count that
 * anyOf/oneOf compare branches by. lib/schema/validate.ts fills it; lib/schema/field-errors.ts turns it into field
 * errors.
 */

/** kube-openapi error codes that apiextensions maps to distinct field error types. */
export type Code = "required" | "enum" | "tooLong" | "maxItems" | "maxProperties" | "invalidType" | "other";

export interface RawError {
  /** A kube-openapi *Validation error (name, value) or a plain Go error (rendered at the field path prefix). */
  plain: boolean;
  code: Code;
  /** The kube-openapi path of the error (may start with "." for required errors at the root). */
  name: string;
  value: unknown;
  /** max length / max items / max properties */
  valid?: number;
  /** enum values */
  values?: unknown[];
  message: string;
}

/** A kube-openapi Result: errors (kept unique by text), ratcheted errors, and the match count. */
export class Acc {
  errors: RawError[] = [];
  private texts: Set<string> | null = null;
  ratcheted: RawError[] = [];
  count = 0;

  add(e: RawError): void {
    if (this.errors.length > 0) {
      if (this.texts === null) {
        this.texts = new Set();
        for (const x of this.errors) this.texts.add(x.message);
      }
      if (this.texts.has(e.message)) return;
      this.texts.add(e.message);
    }
    this.errors.push(e);
  }

  merge(o: Acc): void {
    for (const e of o.errors) this.add(e);
    for (const e of o.ratcheted) this.ratcheted.push(e);
    this.count += o.count;
  }

  mergeAsRatcheted(o: Acc): void {
    for (const e of o.errors) this.ratcheted.push(e);
    for (const e of o.ratcheted) this.ratcheted.push(e);
    this.count += o.count;
  }
}

/** The old value correlated with a node on UPDATE, or NO_OLD. */
export const NO_OLD: unique symbol = Symbol("no-old");

export type Old = unknown | typeof NO_OLD;

export function inBody(name: string, phrase: string): string {
  return `${name} in body ${phrase}`;
}
