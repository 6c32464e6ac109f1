/**
 * Go's `regexp` (RE2 syntax), run on re2js, a port of the same engine: what Kubernetes evaluates for the OpenAPI
 * `pattern` keyword (`regexp.MatchString`, an unanchored search), CEL's `matches`/`find`/`findAll`, KubeVirt's
 * `regex` rules and kube-openapi's hostname pattern. One wrapper, with a bounded cache of compiled patterns.
 *
 * re2js follows Go's parser closely: the same syntax (`(?P<name>…)` and `(?<name>…)`, `\z`,
 * `\pL`, `\p{Greek}`, `[[:alpha:]]`, `\Q…\E`, flags `(?imsU)`), the same refusals (no
 * backreferences, lookaround, possessive or atomic groups, `\Z`, `\A`-style escapes Go lacks),
 * the same limits (repeat counts up to 1000, including nested products; nesting depth 1000) and
 * the same error text, `error parsing regexp: <reason>: `<fragment>``. Matching is linear in
 * the input.
 *
 * Semantics that matter for parity and that re2js shares with Go's `regexp.Compile`: `.` does
 * not match `\n` unless `(?s)`; `^`/`$` match only at the ends of the text unless `(?m)`;
 * `\d`, `\w`, `\s` and `\b` are ASCII-only (`\s` excludes `\v`); `.` matches one code point.
 */

import { RE2JS } from "re2js";
import { dfaTestOf } from "./regexp-dfa.js";

/** A compiled pattern. */
export interface CompiledPattern {
  /** The pattern as written. */
  readonly source: string;
  /** Whether `value` contains a match (Go `regexp.MatchString`: unanchored). */
  test(value: string): boolean;
  /** The leftmost match (Go `FindString`), or undefined. */
  find(value: string): string | undefined;
  /** Every successive non-overlapping match (Go `FindAllString(s, -1)`). */
  findAll(value: string): string[];
}

/** A pattern that does not compile, with Go's error text. */
export interface PatternError {
  readonly error: string;
}

/** Whether `compilePattern` refused the pattern. */
export function isPatternError(result: CompiledPattern | PatternError): result is PatternError {
  return "error" in result;
}

/** How many compiled patterns (and errors) the module keeps; the oldest entry goes first. */
const MAX_CACHED_PATTERNS = 10_000;

const cache = new Map<string, CompiledPattern | PatternError>();

/**
 * Compiles a Go RE2 `pattern` for an unanchored search, like `regexp.MatchString`.
 *
 * Returns an error object for an invalid pattern, in Go's wording (for example
 * `error parsing regexp: missing closing ): `(a``). Results, errors included, are cached by
 * source in a module-level map bounded to 10,000 entries (first in, first out), so a pattern
 * shared by many schemas compiles once.
 */
export function compilePattern(source: string): CompiledPattern | PatternError {
  const cached = cache.get(source);
  if (cached !== undefined) return cached;
  const compiled = compileUncached(source);
  if (cache.size >= MAX_CACHED_PATTERNS) {
    const oldest = cache.keys().next();
    if (oldest.done !== true) cache.delete(oldest.value);
  }
  cache.set(source, compiled);
  return compiled;
}

/** Number of entries in the pattern cache (for tests and diagnostics). */
export function patternCacheSize(): number {
  return cache.size;
}

function compileUncached(source: string): CompiledPattern | PatternError {
  let re: RE2JS;
  try {
    re = RE2JS.compile(source);
  } catch (e) {
    // RE2JSSyntaxException carries Go's full message; anything else is still a pattern the
    // API server would not have accepted.
    return { error: e instanceof Error ? e.message : String(e) };
  }
  const dfa = dfaTestOf(re);
  return {
    source,
    test: dfa === undefined ? (value: string) => re.test(value) : (value: string) => dfa(value) ?? re.test(value),
    find: (value: string) => {
      const m = re.matcher(value);
      return m.find() ? (m.group() ?? "") : undefined;
    },
    findAll: (value: string) => {
      const m = re.matcher(value);
      const out: string[] = [];
      while (m.find()) out.push(m.group() ?? "");
      return out;
    },
  };
}

/**
 * A pattern compiled on its first use (for schemas whose patterns were already checked, such as bundle artifacts).
 * A pattern that does not compile then matches nothing.
 */
export function lazyPattern(source: string): CompiledPattern {
  let compiled: CompiledPattern | undefined;
  const get = (): CompiledPattern | undefined => {
    if (compiled === undefined) {
      const c = compilePattern(source);
      if (isPatternError(c)) return undefined;
      compiled = c;
    }
    return compiled;
  };
  return {
    source,
    test: (value) => get()?.test(value) ?? false,
    find: (value) => get()?.find(value),
    findAll: (value) => get()?.findAll(value) ?? [],
  };
}

/** `regexp.MustCompile`: for patterns of tollgate's own; throws when the pattern does not compile. */
export function mustCompile(source: string): CompiledPattern {
  const c = compilePattern(source);
  if (isPatternError(c)) throw new Error(c.error);
  return c;
}
