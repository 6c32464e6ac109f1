/**
 * The comment-tag syntax of validation-gen (spec/declarative-validation-behaviour.md section 4):
 *
 *   +k8s:name
 *   +k8s:name=<value>                      value: "string" | `raw` | int | true/false | bare word (a string)
 *   +k8s:name(<arg>)=<value>               one positional argument
 *   +k8s:name(a: 1, b: "x", c: true)=...   named arguments (positional and named do not mix)
 *   +k8s:name(...)=+k8s:other(...)=...     the value may itself be a tag
 *
 * A trailing ` # comment` is ignored. This is a small hand-written scanner over one comment line.
 */

export type TagScalar =
  | { kind: "string"; value: string; quoted: boolean }
  | { kind: "int"; value: bigint }
  | { kind: "bool"; value: boolean };

export interface TagArg {
  /** Undefined for a positional argument. */
  name: string | undefined;
  value: TagScalar;
}

export type TagValue = TagScalar | { kind: "tag"; tag: Tag };

export interface Tag {
  /** The full name, e.g. "k8s:minimum" or "groupName". */
  name: string;
  args: TagArg[];
  value: TagValue | undefined;
  /** The tag as written (for this tag and its payload), without a trailing comment. */
  text: string;
  /** The source line of the comment it is written on, for problems (set by the compiler, payloads included). */
  line?: number;
}

export class TagSyntaxError extends Error {}

/** Parses one comment line that starts with `+`. Throws TagSyntaxError when malformed. */
export function parseTag(line: string): Tag {
  const s = new Scanner(stripComment(line));
  const tag = s.tag();
  s.skipSpace();
  if (!s.done()) throw new TagSyntaxError(`unexpected ${JSON.stringify(s.rest())} after the tag`);
  return tag;
}

/** Removes a trailing ` # comment` that is outside quotes. */
function stripComment(line: string): string {
  let quote: string | undefined;
  for (let i = 0; i < line.length; i++) {
    const c = line[i]!;
    if (quote !== undefined) {
      if (c === "\\" && quote === '"') i++;
      else if (c === quote) quote = undefined;
      continue;
    }
    if (c === '"' || c === "`") quote = c;
    else if (c === "#" && i > 0 && (line[i - 1] === " " || line[i - 1] === "\t")) return line.slice(0, i).trimEnd();
  }
  return line.trimEnd();
}

const NAME_CHAR = /[A-Za-z0-9_.:\-/]/;
const WORD_STOP = new Set([",", ")", "(", " ", "\t", "="]);

class Scanner {
  private i = 0;
  constructor(private readonly src: string) {}

  done(): boolean {
    return this.i >= this.src.length;
  }

  rest(): string {
    return this.src.slice(this.i);
  }

  skipSpace(): void {
    while (this.i < this.src.length && (this.src[this.i] === " " || this.src[this.i] === "\t")) this.i++;
  }

  private peek(): string | undefined {
    return this.src[this.i];
  }

  tag(): Tag {
    const start = this.i;
    if (this.peek() !== "+") throw new TagSyntaxError("a tag starts with '+'");
    this.i++;
    const nameStart = this.i;
    while (this.i < this.src.length && NAME_CHAR.test(this.src[this.i]!)) this.i++;
    const name = this.src.slice(nameStart, this.i);
    if (name === "") throw new TagSyntaxError("missing tag name after '+'");
    const args: TagArg[] = [];
    if (this.peek() === "(") {
      this.i++;
      this.args(args);
    }
    let value: TagValue | undefined;
    if (this.peek() === "=") {
      this.i++;
      if (this.peek() === "+") value = { kind: "tag", tag: this.tag() };
      else value = this.payload();
    }
    return { name, args, value, text: this.src.slice(start, this.i).trimEnd() };
  }

  private args(out: TagArg[]): void {
    this.skipSpace();
    if (this.peek() === ")") {
      this.i++;
      return;
    }
    let named: boolean | undefined;
    for (;;) {
      this.skipSpace();
      let name: string | undefined;
      // A named argument is `ident:` followed by a value.
      const hit = /^([A-Za-z_][A-Za-z0-9_]*)\s*:/.exec(this.rest());
      if (hit !== null) {
        name = hit[1];
        this.i += hit[0].length;
        this.skipSpace();
      }
      if (named === undefined) named = name !== undefined;
      else if (named !== (name !== undefined))
        throw new TagSyntaxError("positional and named arguments cannot be mixed");
      const value = this.scalar(true);
      out.push({ name, value });
      this.skipSpace();
      const c = this.peek();
      if (c === ",") {
        this.i++;
        continue;
      }
      if (c === ")") {
        this.i++;
        return;
      }
      throw new TagSyntaxError(
        c === undefined ? "unterminated argument list" : `unexpected ${JSON.stringify(c)} in arguments`,
      );
    }
  }

  /** The value after `=` when it is not a tag: a quoted string, or the rest of the line. */
  private payload(): TagScalar {
    const c = this.peek();
    if (c === '"' || c === "`") return this.scalar(false);
    const text = this.rest().trim();
    this.i = this.src.length;
    return classifyWord(text);
  }

  private scalar(inArgs: boolean): TagScalar {
    const c = this.peek();
    if (c === '"') return { kind: "string", value: this.quoted(), quoted: true };
    if (c === "`") {
      const end = this.src.indexOf("`", this.i + 1);
      if (end === -1) throw new TagSyntaxError("unterminated raw string");
      const value = this.src.slice(this.i + 1, end);
      this.i = end + 1;
      return { kind: "string", value, quoted: true };
    }
    const start = this.i;
    while (this.i < this.src.length && !(inArgs ? WORD_STOP.has(this.src[this.i]!) : false)) this.i++;
    const word = this.src.slice(start, this.i);
    if (word === "") throw new TagSyntaxError("missing value");
    return classifyWord(word);
  }

  private quoted(): string {
    let out = "";
    this.i++;
    while (this.i < this.src.length) {
      const c = this.src[this.i]!;
      if (c === '"') {
        this.i++;
        return out;
      }
      if (c === "\\") {
        const n = this.src[this.i + 1];
        if (n === undefined) break;
        out += n === "n" ? "\n" : n === "t" ? "\t" : n;
        this.i += 2;
        continue;
      }
      out += c;
      this.i++;
    }
    throw new TagSyntaxError("unterminated string");
  }
}

function classifyWord(word: string): TagScalar {
  if (word === "true" || word === "false") return { kind: "bool", value: word === "true" };
  if (/^-?(0|[1-9][0-9]*)$/.test(word)) return { kind: "int", value: BigInt(word) };
  return { kind: "string", value: word, quoted: false };
}
