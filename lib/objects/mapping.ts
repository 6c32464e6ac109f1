/**
 * Decoded documents are plain JSON-like trees: objects with string keys, arrays, strings, numbers,
 * bigints, booleans and null. These helpers read and build the objects safely.
 */

/** A decoded mapping (a JSON object): anything object-like that is not an array. */
export function isMapping(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/**
 * Sets `key` as an own, enumerable property. A plain assignment of `__proto__` would replace the
 * prototype instead (the decoders must keep such a key as data, as JSON.parse does).
 */
export function defineEntry(target: Record<string, unknown>, key: string, value: unknown): void {
  if (key === "__proto__") {
    Object.defineProperty(target, key, { value, writable: true, enumerable: true, configurable: true });
  } else {
    target[key] = value;
  }
}
