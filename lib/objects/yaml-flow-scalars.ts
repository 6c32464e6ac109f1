/**
 * Plain scalars inside flow collections (`[...]`, `{...}`) as go-yaml v2's scanner cuts them (scannerc.go,
 * yaml_parser_scan_plain_scalar and yaml_parser_fetch_next_token), applied to the `yaml` package's lexemes, which
 * follow YAML 1.2 and differ in two places:
 *
 * - `:` ends a plain scalar only before a blank (space, tab, line break or the end). Before a flow indicator
 *   (`,`, `[`, `]`, `{`, `}`) it is part of the scalar, and the indicator ends it: `[1.2.3.4, 001:db8::]` is two
 *   strings, and `{a:}` has the key `a:`. YAML 1.2 ends the scalar at such a `:` and reads a mapping.
 * - `?` ends a plain scalar in a flow collection and is a key indicator there. At the start of a scalar it makes
 *   an explicit key (`[?a]` is `[{a: null}]`); after scalar text it is a key where `,` or the closing bracket is
 *   required, so go-yaml fails with "did not find expected ',' or ']'" (or `'}'`). YAML 1.2 keeps `?` in the
 *   scalar.
 */
import { DecodeFailure } from "./document.js";

/** The lexer's marker before a plain scalar's text (yaml/dist/parse/cst.js SCALAR). */
const SCALAR = "\x1f";
/** Markers that take no room in the text: the parser does not advance its offset for them. */
const ZERO_WIDTH = new Set([SCALAR, "\x02", "\x18"]);
/** The flow-error-end marker: the lexer closed every open flow collection. */
const FLOW_ERROR_END = "\x18";
const FLOW_INDICATORS = new Set([",", "[", "]", "{", "}"]);

/**
 * The lexemes of `lexemes` with go-yaml v2's plain-scalar rules applied in flow collections. Throws
 * {@link DecodeFailure} (with the offset of the `?`) where go-yaml fails.
 */
export function* goYamlFlowScalars(lexemes: Iterable<string>): Generator<string> {
  const open: string[] = [];
  let offset = 0;
  const pending: string[] = [];
  const iterator = lexemes[Symbol.iterator]();
  const next = (): string | undefined => {
    const queued = pending.shift();
    if (queued !== undefined) return queued;
    const step = iterator.next();
    return step.done === true ? undefined : step.value;
  };
  const peek = (ahead: number): string | undefined => {
    while (pending.length <= ahead) {
      const step = iterator.next();
      if (step.done === true) return undefined;
      pending.push(step.value);
    }
    return pending[ahead];
  };

  for (let lexeme = next(); lexeme !== undefined; lexeme = next()) {
    if (lexeme !== SCALAR || open.length === 0) {
      if (lexeme === "[" || lexeme === "{") open.push(lexeme);
      else if (lexeme === "]" || lexeme === "}") open.pop();
      else if (lexeme === FLOW_ERROR_END) open.length = 0;
      if (!ZERO_WIDTH.has(lexeme)) offset += lexeme.length;
      yield lexeme;
      if (lexeme === SCALAR) {
        // Block context: the scalar's text passes through unchanged.
        const text = next();
        if (text === undefined) return;
        offset += text.length;
        yield text;
      }
      continue;
    }
    let text = next() ?? "";
    // `:` glued to the scalar and followed by a flow indicator (the lexer may put an empty scalar in between).
    if (peek(0) === ":") {
      const emptyScalar = peek(1) === SCALAR && peek(2) === "";
      const after = peek(emptyScalar ? 3 : 1);
      if (after !== undefined && FLOW_INDICATORS.has(after)) {
        text += next();
        if (emptyScalar) pending.splice(0, 2);
      }
    }
    const question = text.indexOf("?");
    if (question > 0) {
      const closer = open[open.length - 1] === "{" ? "'}'" : "']'";
      throw new DecodeFailure(`did not find expected ',' or ${closer}`, offset + question);
    }
    if (question === 0 && text.length > 1) {
      // An explicit key indicator, then the rest of the scalar.
      yield "?";
      yield SCALAR;
      yield text.slice(1);
    } else {
      yield SCALAR;
      yield text;
    }
    offset += text.length;
  }
}
