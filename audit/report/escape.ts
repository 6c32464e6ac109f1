/** Escaping of untrusted text (object names, messages, rule texts) for the formats that need it. */

const HTML: Record<string, string> = { "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" };

/** Text for HTML element content and quoted attribute values. */
export function escapeHtml(s: string): string {
  return s.replace(/[&<>"']/g, (c) => HTML[c] ?? c);
}

/** Any character {@link escapeXml} may change: markup, control characters but tab and line ends, any surrogate. */
// biome-ignore lint/suspicious/noControlCharactersInRegex: the characters XML 1.0 forbids
const XML_SPECIAL = /[&<>"'\u0000-\u0008\u000b\u000c\u000e-\u001f\ud800-\udfff\ufffe\uffff]/;

/**
 * Text for XML 1.0 content and attributes: markup characters escaped, and characters XML 1.0 cannot hold (control
 * characters other than tab, newline, carriage return; lone surrogates) replaced by U+FFFD.
 */
export function escapeXml(s: string): string {
  // Most texts (names, paths, most messages) need nothing: one scan tells, instead of two replacing passes.
  if (!XML_SPECIAL.test(s)) return s;
  return escapeHtml(s).replace(
    // biome-ignore lint/suspicious/noControlCharactersInRegex: the characters XML 1.0 forbids
    /[\u0000-\u0008\u000b\u000c\u000e-\u001f\ufffe\uffff]|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g,
    "\ufffd",
  );
}

/**
 * One CSV cell (RFC 4180), with formula injection neutralised (OWASP): a cell that a spreadsheet would read as a
 * formula (starting with `=`, `+`, `-`, `@`, tab or carriage return) gets a leading apostrophe.
 */
export function csvCell(value: string | number | boolean | undefined): string {
  if (value === undefined) return "";
  let s = String(value);
  if (typeof value === "string" && /^[=+\-@\t\r]/.test(s)) s = `'${s}`;
  return /[",\r\n]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
}
