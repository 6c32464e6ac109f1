/**
 * Go's `net/mail.ParseAddress` (as of Go 1.26): one RFC 5322 address, with a display name (`Jane <j@example.com>`),
 * a trailing comment, a quoted local part, a domain literal (`[1.2.3.4]`, `[IPv6:::1]`) or a one-address group
 * (`team: j@example.com;`); RFC 2047 encoded words in display names are decoded (an unknown charset fails).
 * Code points stand for Go's runes (a lone surrogate is one rune).
 */
import { isStdEncoding } from "./base64.js";
import { utf8Length } from "./bytes.js";
import { isIPv4, parseIP } from "./net.js";

/** Value of an ASCII hex digit, or -1. */
function hexValue(c: number): number {
  if (c >= 0x30 && c <= 0x39) return c - 0x30;
  if (c >= 0x61 && c <= 0x66) return c - 0x61 + 10;
  if (c >= 0x41 && c <= 0x46) return c - 0x41 + 10;
  return -1;
}

/** A parse failure inside the mail address parser; caught by {@link isValidAddress}. */
class MailSyntaxError extends Error {
  override readonly name = "MailSyntaxError";
}

/**
 * The parser backtracks through exceptions (as Go's does through error returns); one shared
 * instance keeps that cheap, since the stack is captured only once.
 */
const MAIL_SYNTAX_ERROR = new MailSyntaxError("mail: invalid address");

function failMail(): never {
  throw MAIL_SYNTAX_ERROR;
}

/** net/mail `isVchar`: printable ASCII or any non-ASCII rune (RFC 6532). */
function isVchar(cp: number): boolean {
  return (cp >= 0x21 && cp <= 0x7e) || cp >= 0x80;
}

function isWSP(cp: number): boolean {
  return cp === 0x20 || cp === 0x09;
}

/** net/mail `isAtext`: VCHAR except the RFC 5322 specials; `.` only when `dot`. */
function isAtext(cp: number, dot: boolean): boolean {
  if (cp === 0x2e) return dot;
  if (cp < 0x80 && '()<>[]:;@\\,"'.includes(String.fromCharCode(cp))) return false;
  return isVchar(cp);
}

function isQtext(cp: number): boolean {
  return cp !== 0x5c && cp !== 0x22 && isVchar(cp);
}

function isDtext(cp: number): boolean {
  return cp !== 0x5b && cp !== 0x5d && cp !== 0x5c && isVchar(cp);
}

/** Code point at `i` and its length in UTF-16 units (a lone surrogate is one rune). */
function codePointAt(s: string, i: number): [cp: number, size: number] {
  const cp = s.codePointAt(i) ?? 0;
  return [cp, cp > 0xffff ? 2 : 1];
}

/**
 * mime `WordDecoder.Decode` for the one outcome that matters to address validity: a
 * well-formed RFC 2047 encoded-word whose text decodes but whose charset is not utf-8,
 * iso-8859-1 or us-ascii. net/mail's default decoder has no CharsetReader, so that is an
 * error (which fails a display-name comment, and ends a phrase).
 */
function hasUnsupportedCharset(word: string): boolean {
  if (utf8Length(word) < 8 || !word.startsWith("=?") || !word.endsWith("?=")) return false;
  let questionMarks = 0;
  for (const ch of word) if (ch === "?") questionMarks++;
  if (questionMarks !== 4) return false;
  const inner = word.slice(2, -2);
  const q1 = inner.indexOf("?");
  const charset = inner.slice(0, q1);
  if (charset === "") return false;
  const afterCharset = inner.slice(q1 + 1);
  const q2 = afterCharset.indexOf("?");
  const encoding = afterCharset.slice(0, q2);
  const text = afterCharset.slice(q2 + 1);
  if (encoding.length !== 1) return false;
  let decodes: boolean;
  if (encoding === "B" || encoding === "b") decodes = isStdEncoding(text);
  else if (encoding === "Q" || encoding === "q") decodes = isQDecodable(text);
  else return false;
  if (!decodes) return false;
  const name = foldCharsetName(charset);
  return name !== "utf-8" && name !== "iso-8859-1" && name !== "us-ascii";
}

/**
 * Lower-cases a charset name the way `strings.EqualFold` compares it with the known names:
 * ASCII letters fold, and U+017F (long s) folds to `s`. Other non-ASCII stays and never matches.
 */
function foldCharsetName(s: string): string {
  let out = "";
  for (const ch of s) {
    const c = ch.charCodeAt(0);
    if (c >= 0x41 && c <= 0x5a) out += String.fromCharCode(c + 0x20);
    else if (c === 0x17f) out += "s";
    else out += ch;
  }
  return out;
}

/** mime `qDecode` succeeds: `=XX` escapes, `_`, printable ASCII, tab, CR, LF. */
function isQDecodable(text: string): boolean {
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x3d) {
      if (i + 2 >= text.length) return false;
      if (hexValue(text.charCodeAt(i + 1)) < 0 || hexValue(text.charCodeAt(i + 2)) < 0) return false;
      i += 2;
    } else if (!((c >= 0x20 && c <= 0x7e) || c === 0x0a || c === 0x0d || c === 0x09)) {
      return false;
    }
  }
  return true;
}

/** net/mail `addrParser`, reduced to deciding whether `ParseAddress` succeeds. */
class AddressParser {
  private s: string;

  constructor(s: string) {
    this.s = s;
  }

  /** `parseSingleAddress`. */
  parseSingleAddress(): void {
    const count = this.parseAddress(true);
    if (!this.skipCFWS()) failMail();
    if (this.s !== "") failMail();
    if (count !== 1) failMail(); // empty group, or group with several addresses
  }

  /** `parseAddress`: the number of addresses parsed (a group may hold several). */
  private parseAddress(handleGroup: boolean): number {
    this.skipSpace();
    if (this.s === "") failMail();

    // addr-spec is tried first; on failure the input is left as it was.
    if (this.tryAddrSpec()) {
      this.skipSpace();
      if (this.s.startsWith("(")) this.consumeDisplayNameComment();
      return 1;
    }

    if (!this.s.startsWith("<")) this.consumePhrase();
    this.skipSpace();
    if (handleGroup && this.consume(":")) return this.consumeGroupList();
    if (!this.consume("<")) failMail();
    this.consumeAddrSpec();
    if (!this.consume(">")) failMail();
    return 1;
  }

  private consumeGroupList(): number {
    let count = 0;
    this.skipSpace();
    if (this.consume(";")) {
      if (!this.skipCFWS()) failMail();
      return 0;
    }
    for (;;) {
      this.skipSpace();
      count += this.parseAddress(false);
      if (!this.skipCFWS()) failMail();
      if (this.consume(";")) {
        if (!this.skipCFWS()) failMail();
        return count;
      }
      if (!this.consume(",")) failMail();
    }
  }

  private tryAddrSpec(): boolean {
    const saved = this.s;
    try {
      this.consumeAddrSpec();
      return true;
    } catch (e) {
      if (!(e instanceof MailSyntaxError)) throw e;
      this.s = saved;
      return false;
    }
  }

  /** `consumeAddrSpec`: local-part `@` domain. */
  private consumeAddrSpec(): void {
    const saved = this.s;
    try {
      this.skipSpace();
      if (this.s === "") failMail();
      if (this.s.startsWith('"')) {
        if (this.consumeQuotedString() === "") failMail(); // empty quoted string in addr-spec
      } else {
        this.consumeAtom(true, false);
      }
      if (!this.consume("@")) failMail();
      this.skipSpace();
      if (this.s === "") failMail();
      if (this.s.startsWith("[")) this.consumeDomainLiteral();
      else this.consumeAtom(true, false);
    } catch (e) {
      this.s = saved;
      throw e;
    }
  }

  /** `consumePhrase`: one or more words; stops at the first word that does not parse. */
  private consumePhrase(): void {
    let words = 0;
    for (;;) {
      if (words > 0 && !this.skipCFWS()) failMail();
      this.skipSpace();
      if (this.s === "") break;
      if (this.s.startsWith('"')) {
        const saved = this.s;
        try {
          this.consumeQuotedString();
        } catch (e) {
          if (!(e instanceof MailSyntaxError)) throw e;
          this.s = saved;
          break;
        }
      } else {
        const atom = this.tryConsumeAtom(true, true);
        if (atom === undefined) break;
        // The atom stays consumed even when its encoded-word charset is refused.
        if (hasUnsupportedCharset(atom)) break;
      }
      words++;
    }
    if (words === 0) failMail();
  }

  /** `consumeQuotedString` (the input starts with `"`): the unquoted content. */
  private consumeQuotedString(): string {
    let i = 1;
    let content = "";
    let escaped = false;
    for (;;) {
      if (i >= this.s.length) failMail(); // unclosed quoted-string
      const [cp, size] = codePointAt(this.s, i);
      if (escaped) {
        if (!isVchar(cp) && !isWSP(cp)) failMail();
        content += this.s.slice(i, i + size);
        escaped = false;
      } else if (isQtext(cp) || isWSP(cp)) {
        content += this.s.slice(i, i + size);
      } else if (cp === 0x22) {
        break;
      } else if (cp === 0x5c) {
        escaped = true;
      } else {
        failMail();
      }
      i += size;
    }
    this.s = this.s.slice(i + 1);
    return content;
  }

  private tryConsumeAtom(dot: boolean, permissive: boolean): string | undefined {
    try {
      return this.consumeAtom(dot, permissive);
    } catch (e) {
      if (!(e instanceof MailSyntaxError)) throw e;
      return undefined;
    }
  }

  /** `consumeAtom`: a (dot-)atom; unless permissive, no leading, trailing or double dot. */
  private consumeAtom(dot: boolean, permissive: boolean): string {
    let i = 0;
    while (i < this.s.length) {
      const [cp, size] = codePointAt(this.s, i);
      if (!isAtext(cp, dot)) break;
      i += size;
    }
    if (i === 0) failMail();
    const atom = this.s.slice(0, i);
    this.s = this.s.slice(i);
    if (!permissive && (atom.startsWith(".") || atom.includes("..") || atom.endsWith("."))) failMail();
    return atom;
  }

  /**
   * `consumeDomainLiteral`: `[dtext]`, which must be an IPv4 address (or IPv4-mapped IPv6),
   * or `IPv6:` followed by anything `net.ParseIP` accepts (even an IPv4 address).
   */
  private consumeDomainLiteral(): void {
    if (!this.consume("[")) failMail();
    let dtext = "";
    for (;;) {
      if (this.s === "") failMail();
      if (this.s.startsWith("]")) break;
      const [cp, size] = codePointAt(this.s, 0);
      if (!isDtext(cp)) failMail();
      dtext += this.s.slice(0, size);
      this.s = this.s.slice(size);
    }
    if (!this.consume("]")) failMail();
    if (dtext.startsWith("IPv6:")) {
      if (parseIP(dtext.slice(5)) === undefined) failMail();
    } else {
      const ip = parseIP(dtext);
      if (ip === undefined || !isIPv4(ip)) failMail();
    }
  }

  /** `consumeDisplayNameComment`: a comment after an addr-spec, read as a display name. */
  private consumeDisplayNameComment(): void {
    if (!this.consume("(")) failMail();
    const comment = this.consumeComment();
    if (comment === undefined) failMail();
    for (const word of comment.split(/[ \t]+/)) {
      if (word !== "" && hasUnsupportedCharset(word)) failMail();
    }
  }

  private consume(c: string): boolean {
    if (!this.s.startsWith(c)) return false;
    this.s = this.s.slice(1);
    return true;
  }

  /** `skipSpace`: spaces and tabs only. */
  private skipSpace(): void {
    let i = 0;
    while (i < this.s.length && isWSP(this.s.charCodeAt(i))) i++;
    if (i > 0) this.s = this.s.slice(i);
  }

  /** `skipCFWS`: spaces, tabs and balanced comments; false for an unbalanced comment. */
  private skipCFWS(): boolean {
    this.skipSpace();
    while (this.consume("(")) {
      if (this.consumeComment() === undefined) return false;
      this.skipSpace();
    }
    return true;
  }

  /** `consumeComment` (after `(`): the comment text, or undefined when unbalanced. */
  private consumeComment(): string | undefined {
    let depth = 1;
    let i = 0;
    let comment = "";
    while (i < this.s.length && depth > 0) {
      if (this.s.charCodeAt(i) === 0x5c && this.s.length - i > 1) {
        i++;
      } else if (this.s.charCodeAt(i) === 0x28) {
        depth++;
      } else if (this.s.charCodeAt(i) === 0x29) {
        depth--;
      }
      if (depth > 0) comment += this.s[i];
      i++;
    }
    this.s = this.s.slice(i);
    return depth === 0 ? comment : undefined;
  }
}

/** Whether `mail.ParseAddress(s)` succeeds. */
export function isValidAddress(s: string): boolean {
  try {
    new AddressParser(s).parseSingleAddress();
    return true;
  } catch (e) {
    if (e instanceof MailSyntaxError) return false;
    throw e;
  }
}
