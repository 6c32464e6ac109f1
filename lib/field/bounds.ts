/**
 * Bounds on what one validation returns, so that every answer fits Lambda's 6 MB response and API Gateway's limits
 * and a report stays readable whatever the object. The README states them ("Bounds on outputs").
 *
 * - Field errors: at most {@link MAX_CAUSES} per list of a verdict; when there are more, the first ones are kept and
 *   a last error says how many were left out. The API server returns every cause; tollgate stops where an answer
 *   could outgrow its transport (124,000 causes of an object within the 3 MiB request limit are 89 MB of JSON).
 * - Texts: a message, a detail or a string bad value longer than {@link MAX_TEXT_CHARS} characters is cut there,
 *   with a marker saying how much was cut.
 * - Warnings: as kube-apiserver's warning recorder keeps them (k8s.io/apiserver endpoints/filters/warning.go):
 *   duplicates dropped, texts that an HTTP Warning header cannot carry dropped (invalid UTF-8, control
 *   characters: apimachinery util/net NewWarningHeader), and once the texts reach {@link WARNING_TOTAL_RUNES} runes
 *   every text cut to {@link WARNING_ITEM_RUNES} runes and further warnings dropped. Beyond the recorder, at most
 *   {@link MAX_WARNINGS} texts.
 */

/** Field errors kept per list (errors, warnings, ratcheted, shadowed, audits) of one verdict. */
export const MAX_CAUSES = 100;
/** Longest message, detail or string bad value, in UTF-16 code units. */
export const MAX_TEXT_CHARS = 4096;
/** kube-apiserver's warning recorder: total runes before it starts truncating (truncateAtTotalRunes). */
export const WARNING_TOTAL_RUNES = 4 * 1024;
/** kube-apiserver's warning recorder: runes per warning once truncating (truncateItemRunes). */
export const WARNING_ITEM_RUNES = 256;
/** Most warning texts returned for one object. */
export const MAX_WARNINGS = 100;
/** Most audit annotations kept for one object, and the longest value. */
export const MAX_AUDIT_ANNOTATIONS = 100;
export const MAX_AUDIT_ANNOTATION_CHARS = 10 * 1024;

/** A text cut to `max` characters (never inside a surrogate pair), with a marker saying how much was cut. */
export function truncateText(text: string, max = MAX_TEXT_CHARS): string {
  if (text.length <= max) return text;
  let end = max;
  const c = text.charCodeAt(end - 1);
  if (c >= 0xd800 && c <= 0xdbff) end--;
  return `${text.slice(0, end)}... (${text.length - end} more characters)`;
}

/** Whether Go's NewWarningHeader accepts the text: valid UTF-8 (no lone surrogate), no control character. */
export function isValidWarningText(text: string): boolean {
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    // unicode.IsControl: C0, DEL and C1.
    if (c < 0x20 || (c >= 0x7f && c <= 0x9f)) return false;
    // A lone surrogate cannot be encoded as UTF-8.
    if (c >= 0xd800 && c <= 0xdbff) {
      const d = text.charCodeAt(i + 1);
      if (!(d >= 0xdc00 && d <= 0xdfff)) return false;
      i++;
    } else if (c >= 0xdc00 && c <= 0xdfff) return false;
  }
  return true;
}

function runeLength(text: string): number {
  let n = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c < 0xdc00 || c > 0xdfff) n++;
  }
  return n;
}

function truncateRunes(text: string, runes: number): string {
  let n = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c >= 0xdc00 && c <= 0xdfff) continue;
    if (n === runes) return text.slice(0, i);
    n++;
  }
  return text;
}

/**
 * The warnings a client receives for these texts, as kube-apiserver's warning recorder writes them (see above),
 * and at most {@link MAX_WARNINGS}, the last one then saying how many were left out.
 */
export function recordWarnings(texts: readonly string[]): string[] {
  const seen = new Set<string>();
  let out: string[] = [];
  let written = 0;
  let truncating = false;
  let dropped = 0;
  for (const raw of texts) {
    if (raw.length === 0 || (written >= WARNING_TOTAL_RUNES && truncating) || seen.has(raw)) {
      if (raw.length > 0 && !seen.has(raw)) dropped++;
      continue;
    }
    seen.add(raw);
    if (!isValidWarningText(raw)) continue;
    let text = raw;
    let runes = runeLength(text);
    if (truncating && runes > WARNING_ITEM_RUNES) {
      text = truncateRunes(text, WARNING_ITEM_RUNES);
      runes = WARNING_ITEM_RUNES;
    }
    if (written + runes <= WARNING_TOTAL_RUNES || truncating) {
      written += runes;
      out.push(text);
      continue;
    }
    // Over the total: from now on every warning is cut, the ones already written too.
    truncating = true;
    out.push(text);
    out = out.map((t) => (runeLength(t) > WARNING_ITEM_RUNES ? truncateRunes(t, WARNING_ITEM_RUNES) : t));
    written = out.reduce((n, t) => n + runeLength(t), 0);
  }
  if (out.length > MAX_WARNINGS) {
    dropped += out.length - (MAX_WARNINGS - 1);
    out = out.slice(0, MAX_WARNINGS - 1);
  }
  if (dropped > 0) out.push(`${dropped} more ${dropped === 1 ? "warning" : "warnings"} not shown`);
  return out;
}

/** Audit annotations within the bounds: at most {@link MAX_AUDIT_ANNOTATIONS} keys, values cut. */
export function capAuditAnnotations(annotations: Record<string, string>): Record<string, string> {
  const keys = Object.keys(annotations);
  let capped = keys.length > MAX_AUDIT_ANNOTATIONS;
  for (const k of keys) if (annotations[k]!.length > MAX_AUDIT_ANNOTATION_CHARS || k.length > 1024) capped = true;
  if (!capped) return annotations;
  const out: Record<string, string> = {};
  for (const k of keys.slice(0, MAX_AUDIT_ANNOTATIONS)) {
    out[truncateText(k, 1024)] = truncateText(annotations[k]!, MAX_AUDIT_ANNOTATION_CHARS);
  }
  return out;
}
