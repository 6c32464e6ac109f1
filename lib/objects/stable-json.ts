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
