/**
 * Planted secrets: every value put into a credential-named field starts with PLANTED, and no output (response
 * body, headers, log lines, report files, CLI text) may contain that word.
 */
import fc from "fast-check";

export const PLANTED = "PLANTED";

/** A planted value: fails every pattern and enum of the fuzz bundle (upper case), sometimes with odd characters. */
export const planted: fc.Arbitrary<string> = fc
  .string({ maxLength: 12, unit: fc.constantFrom("a", "Z", "0", " ", "-", "'", '"', "\\", "\n", "é", "\u0000") })
  .map((s) => `${PLANTED}${s}`);

/** Whether a text carries a planted value (also JSON- or Go-escaped: the word itself has no escapable character). */
export function hasPlanted(text: string): boolean {
  return text.includes(PLANTED);
}
