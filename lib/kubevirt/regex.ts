/**
 * `regex` rules run Go's `regexp` (`MatchString`: an unanchored search; lib/go/regexp.ts), with one bound of
 * tollgate's on the pattern's length. See spec/kubevirt-validator-behaviour.md, section 7 ("regex").
 */
import { type CompiledPattern, compilePattern, type PatternError } from "../go/regexp.js";

/** Longest pattern accepted (Go has no limit; RE2 bounds repeat counts to 1000). */
export const MAX_REGEX_LENGTH = 4096;

/** Compiles a pattern, or returns Go's error text (`error parsing regexp: …`). Never throws. */
export function compileRegex(source: string): CompiledPattern | PatternError {
  if (source.length > MAX_REGEX_LENGTH) {
    return { error: `error parsing regexp: pattern longer than ${MAX_REGEX_LENGTH} characters` };
  }
  return compilePattern(source);
}
