/** JSON text of a decoded value with object keys sorted, for content comparison (bigints as their digits). */
export function stableJson(v: unknown): string {
  if (v === null || typeof v !== "object") return typeof v === "bigint" ? v.toString() : JSON.stringify(v);
  if (Array.isArray(v)) return `[${v.map(stableJson).join(",")}]`;
  const o = v as Record<string, unknown>;
  return `{${Object.keys(o)
    .sort()
    .map((k) => `${JSON.stringify(k)}:${stableJson(o[k])}`)
    .join(",")}}`;
}

/**
 * Whether two decoded values have the same {@link stableJson} text, found without building it (a CRD's schemas are
 * hundreds of kilobytes): same keys in any order, same items in order, equal scalars (a bigint equals the number of
 * the same digits). Iterative, so the depth of the input does not reach the stack.
 */
export function sameJson(a: unknown, b: unknown): boolean {
  // Two stacks of the values still to compare, side by side (no pair allocated per value).
  const xs: unknown[] = [a];
  const ys: unknown[] = [b];
  while (xs.length > 0) {
    const x = xs.pop();
    const y = ys.pop();
    if (x === y) continue;
    if (x === null || y === null || typeof x !== "object" || typeof y !== "object") {
      if (!sameScalar(x, y)) return false;
      continue;
    }
    const isArray = Array.isArray(x);
    if (isArray !== Array.isArray(y)) return false;
    if (isArray) {
      const yl = y as unknown[];
      if (x.length !== yl.length) return false;
      for (let i = 0; i < x.length; i++) {
        xs.push(x[i]);
        ys.push(yl[i]);
      }
      continue;
    }
    const xo = x as Record<string, unknown>;
    const yo = y as Record<string, unknown>;
    const keys = Object.keys(xo);
    if (keys.length !== Object.keys(yo).length) return false;
    for (const k of keys) {
      if (!Object.hasOwn(yo, k)) return false;
      xs.push(xo[k]);
      ys.push(yo[k]);
    }
  }
  return true;
}

function sameScalar(x: unknown, y: unknown): boolean {
  if ((typeof x === "bigint" || typeof y === "bigint") && (typeof x === "number" || typeof x === "bigint")) {
    return (typeof y === "number" || typeof y === "bigint") && String(x) === String(y);
  }
  // Objects against scalars, or scalars of different values: JSON texts differ (decoded values hold no NaN).
  return typeof x !== "object" && typeof y !== "object" && JSON.stringify(x) === JSON.stringify(y);
}
