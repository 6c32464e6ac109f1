import { describe, expect, it } from "vitest";
import { LibraryError } from "../../../../../lib/cel/implementations/error.js";
import {
  charAt,
  type FormatArg,
  format,
  groupThousands,
  indexOf,
  join,
  lastIndexOf,
  lowerAscii,
  quote,
  replace,
  split,
  substring,
  trim,
  upperAscii,
} from "../../../../../lib/cel/implementations/strings.js";

/** e to five decimals (a literal would trip biome's noApproximativeNumericConstant). */
const E5 = Number.parseFloat("2.71828");

function errorOf(fn: () => unknown): string {
  try {
    fn();
  } catch (e) {
    if (e instanceof LibraryError) return e.message;
    throw e;
  }
  throw new Error("expected a LibraryError");
}

describe("charAt (cel-go strings_test)", () => {
  it.each([
    { s: "tacocat", i: 3n, want: "o" },
    { s: "tacocat", i: 7n, want: "" },
    { s: "©αT", i: 0n, want: "©" },
    { s: "©αT", i: 1n, want: "α" },
    { s: "©αT", i: 2n, want: "T" },
    { s: "a😀b", i: 1n, want: "😀" },
    { s: "a😀b", i: 2n, want: "b" },
  ])("'$s'.charAt($i)", ({ s, i, want }) => {
    expect(charAt(s, i)).toBe(want);
  });

  it.each([
    { s: "tacocat", i: 30n, error: "index out of range: 30" },
    { s: "hello", i: -1n, error: "index out of range: -1" },
  ])("'$s'.charAt($i) fails", ({ s, i, error }) => {
    expect(errorOf(() => charAt(s, i))).toBe(error);
  });
});

describe("indexOf / lastIndexOf", () => {
  it.each([
    { s: "tacocat", sub: "", offset: undefined, want: 0n },
    { s: "tacocat", sub: "ac", offset: undefined, want: 1n },
    { s: "tacocat", sub: "none", offset: undefined, want: -1n },
    { s: "tacocat", sub: "", offset: 3n, want: 3n },
    { s: "tacocat", sub: "a", offset: 3n, want: 5n },
    { s: "tacocat", sub: "at", offset: 3n, want: 5n },
    { s: "ta©o©αT", sub: "©", offset: undefined, want: 2n },
    { s: "ta©o©αT", sub: "©", offset: 3n, want: 4n },
    { s: "ta©o©αT", sub: "©αT", offset: 3n, want: 4n },
    { s: "ta©o©αT", sub: "©α", offset: 5n, want: -1n },
    { s: "ijk", sub: "k", offset: undefined, want: 2n },
    { s: "hello wello", sub: "hello wello", offset: undefined, want: 0n },
    { s: "hello wello", sub: "ello", offset: 6n, want: 7n },
    { s: "hello wello", sub: "elbo room!!", offset: undefined, want: -1n },
    { s: "hello wello", sub: "elbo room!!!", offset: undefined, want: -1n },
    { s: "hello mellow", sub: "ello", offset: 20n, want: -1n },
    { s: "", sub: "a", offset: undefined, want: -1n },
    { s: "a😀b😀", sub: "😀", offset: 2n, want: 3n },
  ])("'$s'.indexOf('$sub', $offset) → $want", ({ s, sub, offset, want }) => {
    expect(indexOf(s, sub, offset)).toBe(want);
  });

  it.each([
    { s: "tacocat", sub: "", offset: undefined, want: 7n },
    { s: "tacocat", sub: "at", offset: undefined, want: 5n },
    { s: "tacocat", sub: "none", offset: undefined, want: -1n },
    { s: "tacocat", sub: "", offset: 3n, want: 3n },
    { s: "tacocat", sub: "a", offset: 3n, want: 1n },
    { s: "ta©o©αT", sub: "©", offset: undefined, want: 4n },
    { s: "ta©o©αT", sub: "©", offset: 3n, want: 2n },
    { s: "ta©o©αT", sub: "©α", offset: 4n, want: 4n },
    { s: "hello wello", sub: "ello", offset: 6n, want: 1n },
    { s: "hello wello", sub: "low", offset: undefined, want: -1n },
    { s: "hello wello", sub: "elbo room!!", offset: undefined, want: -1n },
    { s: "hello wello", sub: "elbo room!!!", offset: undefined, want: -1n },
    { s: "hello wello", sub: "hello wello", offset: undefined, want: 0n },
    { s: "bananananana", sub: "nana", offset: 7n, want: 6n },
    { s: "hello mellow", sub: "ello", offset: 20n, want: -1n },
    { s: "", sub: "@@", offset: undefined, want: -1n },
    { s: "", sub: "a", offset: undefined, want: -1n },
  ])("'$s'.lastIndexOf('$sub', $offset) → $want", ({ s, sub, offset, want }) => {
    expect(lastIndexOf(s, sub, offset)).toBe(want);
  });

  it.each([
    { name: "negative indexOf offset", fn: () => indexOf("tacocat", "a", -1n), error: "index out of range: -1" },
    {
      name: "negative lastIndexOf offset",
      fn: () => lastIndexOf("tacocat", "a", -1n),
      error: "index out of range: -1",
    },
    // with an offset there is no length check first: the offset is out of range (without one, -1: see above)
    {
      name: "lastIndexOf on an empty string at an offset",
      fn: () => lastIndexOf("", "a", -1n),
      error: "index out of range: -1",
    },
  ])("$name", ({ fn, error }) => {
    expect(errorOf(fn)).toBe(error);
  });
});

describe("lowerAscii / upperAscii", () => {
  it.each([
    { s: "TacoCat", lower: "tacocat", upper: "TACOCAT" },
    { s: "TacoCÆt Xii", lower: "tacocÆt xii", upper: "TACOCÆT XII" },
    { s: "tacoCαt", lower: "tacocαt", upper: "TACOCαT" },
  ])("$s", ({ s, lower, upper }) => {
    expect(lowerAscii(s)).toBe(lower);
    expect(upperAscii(s)).toBe(upper);
  });
});

describe("replace (strings.Replace)", () => {
  it.each([
    { s: "12 days 12 hours", from: "{0}", to: "2", n: undefined, want: "12 days 12 hours" },
    { s: "{0} days {0} hours", from: "{0}", to: "2", n: undefined, want: "2 days 2 hours" },
    { s: "{0} days {0} hours", from: "{0}", to: "2", n: 1n, want: "2 days {0} hours" },
    { s: "1 ©αT taco", from: "αT", to: "o©α", n: undefined, want: "1 ©o©α taco" },
    { s: "hello hello", from: "he", to: "we", n: -1n, want: "wello wello" },
    { s: "hello hello", from: "he", to: "we", n: 0n, want: "hello hello" },
    { s: "aaa", from: "aa", to: "b", n: undefined, want: "ba" },
    { s: "abc", from: "", to: "-", n: undefined, want: "-a-b-c-" },
    { s: "abc", from: "", to: "-", n: 2n, want: "-a-bc" },
    { s: "a😀", from: "", to: "-", n: undefined, want: "-a-😀-" },
    { s: "", from: "", to: "x", n: undefined, want: "x" },
  ])("'$s'.replace('$from', '$to', $n)", ({ s, from, to, n, want }) => {
    expect(replace(s, from, to, n)).toBe(want);
  });
});

describe("split (strings.SplitN)", () => {
  it.each([
    { s: "hello world", sep: " ", n: undefined, want: ["hello", "world"] },
    { s: "hello world events!", sep: " ", n: 0n, want: [] },
    { s: "hello world events!", sep: " ", n: 1n, want: ["hello world events!"] },
    { s: "hello hello hello", sep: " ", n: 2n, want: ["hello", "hello hello"] },
    { s: "o©o©o©o", sep: "©", n: -1n, want: ["o", "o", "o", "o"] },
    { s: "a,b,c", sep: ",", n: 2n, want: ["a", "b,c"] },
    { s: "a,b,c", sep: ",", n: 10n, want: ["a", "b", "c"] },
    { s: "", sep: ",", n: undefined, want: [""] },
    { s: "", sep: "", n: undefined, want: [] },
    { s: "a😀b", sep: "", n: undefined, want: ["a", "😀", "b"] },
    { s: "abc", sep: "", n: 2n, want: ["a", "bc"] },
    { s: ",a,", sep: ",", n: undefined, want: ["", "a", ""] },
  ])("'$s'.split('$sep', $n)", ({ s, sep, n, want }) => {
    expect(split(s, sep, n)).toEqual(want);
  });
});

describe("substring", () => {
  it.each([
    { s: "tacocat", start: 4n, end: undefined, want: "cat" },
    { s: "tacocat", start: 7n, end: undefined, want: "" },
    { s: "tacocat", start: 0n, end: 4n, want: "taco" },
    { s: "tacocat", start: 4n, end: 4n, want: "" },
    { s: "ta©o©αT", start: 2n, end: 6n, want: "©o©α" },
    { s: "ta©o©αT", start: 7n, end: 7n, want: "" },
  ])("'$s'.substring($start, $end)", ({ s, start, end, want }) => {
    expect(substring(s, start, end)).toBe(want);
  });

  it.each([
    { start: 40n, end: undefined, error: "index out of range: 40" },
    { start: -1n, end: undefined, error: "index out of range: -1" },
    { start: 1n, end: 50n, error: "index out of range: 50" },
    { start: 49n, end: 50n, error: "index out of range: 49" },
    { start: 4n, end: 3n, error: "invalid substring range. start: 4, end: 3" },
    { start: -5n, end: -6n, error: "invalid substring range. start: -5, end: -6" },
  ])("'tacocat'.substring($start, $end) fails", ({ start, end, error }) => {
    expect(errorOf(() => substring("tacocat", start, end))).toBe(error);
  });
});

describe("trim (strings.TrimSpace)", () => {
  it.each([
    { s: " \f\n\r\t\vtext  ", want: "text" },
    { s: "\u0085\u00a0\u1680text", want: "text" },
    { s: "text\u2000\u2001\u2002\u2003\u2004\u2004\u2006\u2007\u2008\u2009", want: "text" },
    { s: "\u200atext\u2028\u2029\u202F\u205F\u3000", want: "text" },
    { s: "\u180etext\u200b\u200c\u200d\u2060\ufeff", want: "\u180etext\u200b\u200c\u200d\u2060\ufeff" },
    { s: "   ", want: "" },
    { s: " a b ", want: "a b" },
  ])("$s", ({ s, want }) => {
    expect(trim(s)).toBe(want);
  });
});

describe("join", () => {
  it.each([
    { list: ["x", "y"], sep: undefined, want: "xy" },
    { list: ["x", "y"], sep: "-", want: "x-y" },
    { list: [], sep: undefined, want: "" },
    { list: [], sep: "-", want: "" },
  ])("$list.join($sep)", ({ list, sep, want }) => {
    expect(join(list, sep)).toBe(want);
  });
});

describe("strings.quote", () => {
  it.each([
    { s: "first\nsecond", want: '"first\\nsecond"' },
    { s: "bell\u0007", want: '"bell\\a"' },
    { s: "\bbackspace", want: '"\\bbackspace"' },
    { s: "\fform feed", want: '"\\fform feed"' },
    { s: "carriage \r return", want: '"carriage \\r return"' },
    { s: "horizontal tab\t", want: '"horizontal tab\\t"' },
    { s: "vertical \v tab", want: '"vertical \\v tab"' },
    { s: "double \\\\ slash", want: '"double \\\\\\\\ slash"' },
    { s: "verbatim", want: '"verbatim"' },
    { s: "ends with \\", want: '"ends with \\\\"' },
    { s: "printable unicode😀", want: '"printable unicode😀"' },
    { s: 'mid string " quote', want: '"mid string \\" quote"' },
    { s: "size('πέντε')", want: "\"size('πέντε')\"" },
    { s: "nul\u0000esc\u001b", want: '"nul\u0000esc\u001b"' },
    { s: "lone\ud800", want: '"lone\ufffd"' },
  ])("$s", ({ s, want }) => {
    expect(quote(s)).toBe(want);
  });
});

const str = (value: string): FormatArg => ({ kind: "string", value });
const int = (value: bigint): FormatArg => ({ kind: "int", value });
const uint = (value: bigint): FormatArg => ({ kind: "uint", value });
const dbl = (value: number): FormatArg => ({ kind: "double", value });

describe("format (cel-go TestStringFormat, en_US)", () => {
  it.each<{ name: string; fmt: string; args: FormatArg[]; want: string }>([
    { name: "no-op", fmt: "no substitution", args: [], want: "no substitution" },
    { name: "mid-string", fmt: "str is %s and some more", args: [str("filler")], want: "str is filler and some more" },
    { name: "percent escaping", fmt: "%% and also %%", args: [], want: "% and also %" },
    { name: "inside escapes", fmt: "%%%s%%", args: [str("text")], want: "%text%" },
    {
      name: "multiple",
      fmt: "%d %d %d, %s %s %s",
      args: [int(1n), int(2n), int(3n), str("A"), str("B"), str("C")],
      want: "1 2 3, A B C",
    },
    { name: "fixed", fmt: "%.3f", args: [dbl(1.2345)], want: "1.234" },
    { name: "fixed default", fmt: "%f", args: [dbl(E5)], want: "2.718280" },
    { name: "fixed grouping", fmt: "%.2f", args: [dbl(1234567.891)], want: "1,234,567.89" },
    { name: "fixed half even", fmt: "%.2f", args: [dbl(0.125)], want: "0.12" },
    { name: "fixed zero precision", fmt: "%.0f", args: [dbl(2.5)], want: "2" },
    { name: "fixed NaN string", fmt: "%f", args: [str("NaN")], want: "NaN" },
    { name: "fixed Infinity string", fmt: "%f", args: [str("Infinity")], want: "∞" },
    { name: "fixed -Infinity string", fmt: "%f", args: [str("-Infinity")], want: "-∞" },
    {
      name: "fixed NaN/Inf doubles",
      fmt: "NaN: %f, infinity: %f",
      args: [dbl(Number.NaN), dbl(Number.POSITIVE_INFINITY)],
      want: "NaN: NaN, infinity: ∞",
    },
    { name: "binary", fmt: "this is 5 in binary: %b", args: [int(5n)], want: "this is 5 in binary: 101" },
    { name: "binary uint", fmt: "%b", args: [uint(64n)], want: "1000000" },
    { name: "binary bool", fmt: "%b", args: [{ kind: "bool", value: true }], want: "1" },
    { name: "binary negative", fmt: "%b", args: [int(-5n)], want: "-101" },
    { name: "octal", fmt: "%o", args: [int(11n)], want: "13" },
    { name: "octal uint", fmt: "%o", args: [uint(65535n)], want: "177777" },
    { name: "hex", fmt: "%x is 20 in hexadecimal", args: [int(30n)], want: "1e is 20 in hexadecimal" },
    { name: "HEX", fmt: "%X", args: [int(30n)], want: "1E" },
    { name: "hex uint", fmt: "%X", args: [uint(6000n)], want: "1770" },
    { name: "hex string", fmt: "%x", args: [str("Hello world!")], want: "48656c6c6f20776f726c6421" },
    { name: "HEX string", fmt: "%X", args: [str("Hello world!")], want: "48656C6C6F20776F726C6421" },
    {
      name: "hex bytes",
      fmt: "%x",
      args: [{ kind: "bytes", value: new TextEncoder().encode("byte string") }],
      want: "6279746520737472696e67",
    },
    { name: "scientific", fmt: "%.6e", args: [dbl(1052.032911275)], want: "1.052033\u202f×\u202f10⁰³" },
    { name: "scientific default", fmt: "%e", args: [dbl(E5)], want: "2.718280\u202f×\u202f10⁰⁰" },
    { name: "decimal uint", fmt: "%d", args: [uint(64n)], want: "64" },
    { name: "null", fmt: "null: %s", args: [{ kind: "null" }], want: "null: null" },
    {
      name: "bytes as string",
      fmt: "some bytes: %s",
      args: [{ kind: "bytes", value: new TextEncoder().encode("xyz") }],
      want: "some bytes: xyz",
    },
    { name: "type", fmt: "type is %s", args: [{ kind: "type", name: "string" }], want: "type is string" },
    {
      name: "timestamp",
      fmt: "%s",
      args: [{ kind: "timestamp", seconds: 1675467080n, nanos: 0 }],
      want: "2023-02-03T23:31:20Z",
    },
    {
      name: "timestamp with fraction",
      fmt: "%s",
      args: [{ kind: "timestamp", seconds: 1570864850n, nanos: 520000000 }],
      want: "2019-10-12T07:20:50.52Z",
    },
    { name: "duration", fmt: "%s", args: [{ kind: "duration", nanos: 6347_000_000_000n }], want: "6347s" },
    { name: "duration fraction", fmt: "%s", args: [{ kind: "duration", nanos: 1_500_000_000n }], want: "1.5s" },
    { name: "duration nano", fmt: "%s", args: [{ kind: "duration", nanos: 1n }], want: "0.000000001s" },
    { name: "double %s", fmt: "%s", args: [dbl(56.8)], want: "56.8" },
    { name: "double %s exponent", fmt: "%s", args: [dbl(1234567)], want: "1.234567e+06" },
    { name: "double %s small", fmt: "%s", args: [dbl(0.00001)], want: "1e-05" },
    { name: "double %s integral", fmt: "%s", args: [dbl(100000)], want: "100000" },
    { name: "int %s", fmt: "%s", args: [int(32n)], want: "32" },
    {
      name: "list",
      fmt: "%s",
      args: [
        {
          kind: "list",
          items: [
            str("abc"),
            dbl(3.14),
            { kind: "null" },
            { kind: "list", items: [int(9n), int(8n), int(7n), int(6n)] },
            { kind: "timestamp", seconds: 1675467080n, nanos: 0 },
          ],
        },
      ],
      want: '["abc", 3.140000, null, [9, 8, 7, 6], timestamp("2023-02-03T23:31:20Z")]',
    },
    {
      name: "map",
      fmt: "%s",
      args: [
        {
          kind: "map",
          entries: [
            [str("key1"), { kind: "bytes", value: new TextEncoder().encode("xyz") }],
            [str("key5"), { kind: "null" }],
            [str("key2"), { kind: "duration", nanos: 7200_000_000_000n }],
            [str("key4"), { kind: "bool", value: true }],
            [str("key3"), dbl(E5)],
          ],
        },
      ],
      want: '{"key1":b"xyz", "key2":duration("7200s"), "key3":2.718280, "key4":true, "key5":null}',
    },
    {
      name: "map key types",
      fmt: "map with multiple key types: %s",
      args: [
        {
          kind: "map",
          entries: [
            [int(1n), str("value1")],
            [uint(2n), str("value2")],
            [{ kind: "bool", value: true }, dbl(Number.NaN)],
          ],
        },
      ],
      want: 'map with multiple key types: {1:"value1", 2:"value2", true:"NaN"}',
    },
    { name: "unicode text", fmt: "é %s ü", args: [str("日本")], want: "é 日本 ü" },
  ])("$name", ({ fmt, args, want }) => {
    expect(format(fmt, args)).toBe(want);
  });

  it.each<{ name: string; fmt: string; args: FormatArg[]; error: string }>([
    {
      name: "unrecognized clause",
      fmt: "%a",
      args: [int(1n)],
      error: 'could not parse formatting clause: unrecognized formatting clause "a"',
    },
    { name: "out of bounds", fmt: "%d %d %d", args: [int(0n), int(1n)], error: "index 2 out of range" },
    { name: "no args", fmt: "abc %", args: [], error: "index 0 out of range" },
    { name: "trailing percent", fmt: "abc %", args: [int(1n)], error: "unexpected end of string" },
    {
      name: "string with %b",
      fmt: "string is %b",
      args: [str("abc")],
      error: "error during formatting: only integers and bools can be formatted as binary, was given string",
    },
    {
      name: "duration with %d",
      fmt: "%d",
      args: [{ kind: "duration", nanos: 1n }],
      error: "error during formatting: decimal clause can only be used on integers, was given google.protobuf.Duration",
    },
    {
      name: "double with %d",
      fmt: "%d",
      args: [dbl(1.5)],
      error: "error during formatting: decimal clause can only be used on integers, was given double",
    },
    {
      name: "int with %f",
      fmt: "%f",
      args: [int(1n)],
      error: "error during formatting: fixed-point clause can only be used on doubles, was given int",
    },
    {
      name: "string with %o",
      fmt: "octal: %o",
      args: [str("a string")],
      error: "error during formatting: octal clause can only be used on integers, was given string",
    },
    {
      name: "double with %x",
      fmt: "double is %x",
      args: [dbl(0.5)],
      error:
        "error during formatting: only integers, byte buffers, and strings can be formatted as hex, was given double",
    },
    {
      name: "uppercase E",
      fmt: "double is %E",
      args: [dbl(0.5)],
      error: 'could not parse formatting clause: unrecognized formatting clause "E"',
    },
    {
      name: "object with %s",
      fmt: "object is %s",
      args: [{ kind: "other", typeName: "kubernetes.Quantity" }],
      error:
        "error during formatting: string clause can only be used on strings, bools, bytes, ints, doubles, maps, lists, types, durations, and timestamps, was given kubernetes.Quantity",
    },
    {
      name: "object in list",
      fmt: "%s",
      args: [{ kind: "list", items: [int(1n), { kind: "other", typeName: "net.IP" }] }],
      error: "error during formatting: no formatting function for net.IP",
    },
    {
      name: "null with %e",
      fmt: "null: %e",
      args: [{ kind: "null" }],
      error: "error during formatting: scientific clause can only be used on doubles, was given null_type",
    },
    {
      name: "empty precision",
      fmt: "%.f",
      args: [dbl(1)],
      error:
        'could not parse formatting clause: error while parsing precision: error while converting precision to integer: strconv.Atoi: parsing "": invalid syntax',
    },
    {
      name: "unterminated precision",
      fmt: "%.3",
      args: [dbl(1)],
      error:
        "could not parse formatting clause: error while parsing precision: could not find end of precision specifier",
    },
    {
      name: "non-ASCII clause byte",
      fmt: "%é",
      args: [dbl(1)],
      error: 'could not parse formatting clause: unrecognized formatting clause "Ã"',
    },
  ])("$name", ({ fmt, args, error }) => {
    expect(errorOf(() => format(fmt, args))).toBe(error);
  });
});

describe("groupThousands", () => {
  it.each([
    { s: "1234567.891", want: "1,234,567.891" },
    { s: "-1234", want: "-1,234" },
    { s: "123", want: "123" },
    { s: "0.5", want: "0.5" },
  ])("$s", ({ s, want }) => {
    expect(groupThousands(s)).toBe(want);
  });
});
