/**
 * `regex` rules run Go's `regexp` (RE2 syntax, `MatchString`: an unanchored search), here on re2js, a port of the
 * same engine: the same syntax (`(?i)`, `(?P<n>…)`, `\pL`, `[[:digit:]]`, `\Q…\E`), the same refusals (lookaround,
 * backreferences, atomic and possessive groups, `\Z`) with Go's error text, and matching linear in the input.
 * See spec/kubevirt-validator-behaviour.md, section 7 ("regex").
 */
import { RE2JS } from "re2js";

/** Longest pattern accepted (Go has no limit; RE2 bounds repeat counts to 1000). */
export const MAX_REGEX_LENGTH = 4096;

export interface CompiledRegex {
  readonly source: string;
  /** Whether the pattern matches anywhere in `value`. */
  test(value: string): boolean;
}

/** Compiles a pattern, or returns Go's error text (`error parsing regexp: …`). Never throws. */
export function compileRegex(source: string): CompiledRegex | { readonly error: string } {
  if (source.length > MAX_REGEX_LENGTH) {
    return { error: `error parsing regexp: pattern longer than ${MAX_REGEX_LENGTH} characters` };
  }
  try {
    const re = RE2JS.compile(source);
    return { source, test: (value: string) => re.test(value) };
  } catch (e) {
    return { error: e instanceof Error ? e.message : String(e) };
  }
}
