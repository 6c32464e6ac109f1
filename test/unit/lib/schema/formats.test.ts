import { describe, expect, it } from "vitest";
import {
  checkStringFormat,
  isIntegerFormat,
  isNumberFormat,
  keptFormat,
  supportedStringFormat,
} from "../../../../lib/schema/formats.js";

interface FormatCase {
  format: string;
  value: string;
  valid: boolean;
}

/** Cases for one format: every `accept` value must pass, every `reject` value must fail. */
function cases(format: string, accept: readonly string[], reject: readonly string[]): FormatCase[] {
  return [
    ...accept.map((value) => ({ format, value, valid: true })),
    ...reject.map((value) => ({ format, value, valid: false })),
  ];
}

function runCases(table: FormatCase[]): void {
  it.each(table)("$format $value → $valid", ({ format, value, valid }) => {
    // Act
    const got = checkStringFormat(format, value);
    // Assess
    expect(got).toBe(valid);
  });
}

describe("supportedStringFormat (apiextensions formats.go, supportedVersionedFormats at 1.35)", () => {
  it.each([
    { format: "date-time", normalised: "datetime" },
    { format: "datetime", normalised: "datetime" },
    { format: "k8s-short-name", normalised: "k8sshortname" },
    { format: "k8sshortname", normalised: "k8sshortname" },
    { format: "k8s-long-name", normalised: "k8slongname" },
    { format: "d-a-t-e", normalised: "date" },
    { format: "uuid", normalised: "uuid" },
    { format: "bsonobjectid", normalised: "bsonobjectid" },
    { format: "password", normalised: "password" },
    { format: "byte", normalised: "byte" },
    { format: "UUID", normalised: undefined },
    { format: "int32", normalised: undefined },
    { format: "quantity", normalised: undefined },
    { format: "k8s-ip-sloppy", normalised: undefined },
    { format: "semver", normalised: undefined },
    { format: "url", normalised: undefined },
    { format: "", normalised: undefined },
  ])("$format → $normalised", ({ format, normalised }) => {
    expect(supportedStringFormat(format)).toBe(normalised);
  });
});

describe("numeric formats (StripUnsupportedFormatsPostProcessorForVersion)", () => {
  it.each([
    { format: "int32", integer: true, number: false },
    { format: "int64", integer: true, number: false },
    { format: "float", integer: false, number: true },
    { format: "double", integer: false, number: true },
    { format: "int-32", integer: false, number: false },
    { format: "uint64", integer: false, number: false },
    { format: "Int32", integer: false, number: false },
  ])("$format", ({ format, integer, number }) => {
    expect(isIntegerFormat(format)).toBe(integer);
    expect(isNumberFormat(format)).toBe(number);
  });

  it.each([
    { type: "string", format: "date-time", kept: "datetime" },
    { type: undefined, format: "email", kept: "email" },
    { type: "", format: "uuid", kept: "uuid" },
    { type: "string", format: "int32", kept: undefined },
    { type: "integer", format: "int32", kept: "int32" },
    { type: "integer", format: "int64", kept: "int64" },
    { type: "integer", format: "double", kept: undefined },
    { type: "integer", format: "uuid", kept: undefined },
    { type: "number", format: "float", kept: "float" },
    { type: "number", format: "double", kept: "double" },
    { type: "number", format: "int64", kept: undefined },
    { type: "boolean", format: "int32", kept: undefined },
    { type: "array", format: "email", kept: undefined },
    { type: "object", format: "email", kept: undefined },
    { type: "string", format: "", kept: undefined },
  ])("type $type format $format → $kept", ({ type, format, kept }) => {
    expect(keptFormat(type, format)).toBe(kept);
  });
});

describe("checkStringFormat with an unknown name", () => {
  it("accepts anything (the API server strips unknown formats first)", () => {
    expect(checkStringFormat("nosuchformat", "whatever")).toBe(true);
  });
});

// kube-openapi strfmt bson.go IsBSONObjectID → hex.DecodeString, exactly 12 bytes.
describe("bsonobjectid", () => {
  runCases(
    cases(
      "bsonobjectid",
      ["507f1f77bcf86cd799439011", "507F1F77BCF86CD799439011", "000000000000000000000000"],
      [
        "507f1f77bcf86cd79943901",
        "507f1f77bcf86cd7994390111",
        "507f1f77bcf86cd79943901g",
        "",
        "0x7f1f77bcf86cd799439011",
      ],
    ),
  );
});

// govalidator IsRequestURI → net/url.ParseRequestURI (Go 1.26).
describe("uri", () => {
  runCases(
    cases(
      "uri",
      [
        "http://somewhere.com",
        "https://user:pa%20ss@example.com:8443/a/b?q=1",
        "http://example.com:/", // empty port
        "http://", // empty authority
        "http:///path", // empty host
        "/relative/path", // absolute path without scheme
        "//not-a-host/path", // without scheme, "//" is just the path
        "*",
        "mailto:someone@example.com", // opaque
        "mailto:%zz", // opaque parts are not checked
        "urn:isbn:0451450523",
        "http:", // scheme only (empty opaque)
        "http://x/?%zz", // the query is not checked
        "http://x/#frag", // a fragment stays in the path
        "http://[::1]:80/x",
        "http://[fe80::1%25en0]/",
        "http://[::ffff:1.2.3.4]/", // IPv4-mapped IPv6 is allowed in brackets
        "http://ex<am>ple.com/", // < > are left alone in hosts
        "http://例え.jp/", // non-ASCII host bytes are allowed
        "ftp://a:1:2/", // other schemes: the last colon starts the port
        "http://a@b@c/", // userinfo ends at the last @
        "HTTP://EXAMPLE.COM/",
        "a+b-c.d:rest",
        "http://x/%41",
      ],
      [
        "",
        "somewhere.com", // no scheme and no leading slash
        "relative/path",
        ":foo", // missing protocol scheme
        "1http://x", // a scheme cannot start with a digit
        "http://x/%zz", // bad escape in the path
        "/p#%zz", // the fragment is part of the path here
        "/%4",
        "http://a b/", // space in host
        "http://x\n/", // control character
        "http://x/\u007f",
        "http://[1.2.3.4]/", // brackets hold IPv6 only
        "http://[::1/", // missing ]
        "http://a[::1]/", // [ not first (CVE-2026-25679)
        "http://[fe80::1%25]/", // empty zone
        "http://[::1]x/", // junk after ]
        "http://host:port/", // port must be digits
        "http://a:1:2/", // http/https: colons in host (urlstrictcolons)
        "http://::1/",
        "http://%41.com/", // hosts may not %-escape ASCII
        "http://us{er@x/", // invalid userinfo character
        "http://üser@x/", // userinfo is ASCII only
        "http://u%zz@x/",
        "http://x{y}/",
      ],
    ),
  );
});

// kube-openapi IsEmail → net/mail.ParseAddress succeeds with a non-empty address.
describe("email", () => {
  runCases(
    cases(
      "email",
      [
        // kube-openapi default_test.go TestFormatEmail
        "blah@gmail.com",
        "test@d.verylongtoplevel",
        "email+tag@gmail.com",
        '" "@example.com',
        '"Abc\\@def"@example.com',
        '"Fred Bloggs"@example.com',
        '"Joe\\\\Blow"@example.com',
        '"Abc@def"@example.com',
        "customer/department=shipping@example.com",
        "$A12345@example.com",
        "!def!xyz%abc@example.com",
        "_somename@example.com",
        "!#$%&'*+-/=?^_`{}|~@example.com",
        "Miles.O'Brian@example.com",
        "postmaster@☁→❄→☃→☀→☺→☂→☹→✝.ws",
        "root@localhost",
        "john@com",
        "api@piston.ninja",
        // name-addr, comments, groups, domain literals
        "Barry Gibbs <bg@example.com>",
        '"Gibbs, Barry" <bg@example.com>',
        "<bg@example.com>",
        "  bg@example.com  ",
        "bg@example.com (Barry Gibbs)",
        "bg@example.com (=?utf-8?q?Barry?=)",
        "bg@example.com (=?foo?x?y?=)", // not a valid encoded-word: ignored
        "=?utf-8?q?J=C3=B6rg?= <j@example.com>",
        "Jörg <j@example.com>",
        "team: j@example.com;", // a group with one address
        "a@[192.0.2.1]",
        "a@[IPv6:2001:db8::1]",
        "a@[IPv6:1.2.3.4]", // net.ParseIP accepts IPv4 here too
        "a@[::ffff:1.2.3.4]", // To4() != nil
        "Name (comment) <a@b>",
      ],
      [
        "",
        "somebody@somewhere@com",
        "plainaddress",
        "@example.com",
        "a@",
        "a..b@example.com",
        ".a@example.com",
        "a.@example.com",
        "a@example..com",
        "a@.example.com",
        '""@example.com', // empty quoted local part
        '"unclosed@example.com',
        "a b@example.com",
        "a@b c",
        "Barry <bg@example.com", // unclosed angle-addr
        "Barry bg@example.com",
        "team:;", // empty group
        "team: a@b, c@d;", // group with two addresses
        "a@b, c@d", // a list, not a single address
        "a@[::1]", // IPv6 literal without the IPv6: tag
        "a@[300.1.1.1]",
        "a@[IPv6:zz]",
        "a@b (unclosed",
        "bg@example.com (=?foo?q?x?=)", // encoded-word with an unsupported charset
        "=?foo?q?x?= <j@example.com>",
        "a\u0000@example.com",
        "a@exa\tmple.com",
      ],
    ),
  );
});

// kube-openapi IsHostname: HostnamePattern plus 255-byte and 63-byte label limits.
describe("hostname", () => {
  const longLabel = "a".repeat(64);
  runCases(
    cases(
      "hostname",
      [
        // kube-openapi default_test.go TestFormatHostname, valid
        "somewhere.com",
        "888.com",
        "a.com",
        "a.b.com",
        "a.b.c.com",
        "a.b.c.d.com",
        "a.b.c.d.e.com",
        "1.com",
        "1.2.com",
        "1.2.3.com",
        "1.2.3.4.com",
        "99.domain.com",
        "99.99.domain.com",
        "1wwworg.example.com",
        "1000wwworg.example.com",
        "xn--bcher-kva.example.com",
        "xn-80ak6aa92e.co",
        "xn-80ak6aa92e.com",
        "xn--ls8h.la",
        "☁→❄→☃→☀→☺→☂→☹→✝.ws",
        "www.example.onion",
        "www.example.ôlà",
        "ôlà.ôlà",
        "ôlà.ôlà.ôlà",
        "ex$ample",
        "localhost",
        "example",
        "x",
        "x-y",
        "a.b.c.dot",
        "www.example.org",
        "a.b.c.d.e.f.g.dot",
        "ex=ample.com",
        "<foo>",
        "www.example-hyphenated.org",
        "www.詹姆斯.org",
        "www.élégigôö.org",
        "www.詹姆斯.london",
        // single label: one dash, right after the first character
        "a-bcdef",
        "a".repeat(63),
      ],
      [
        // kube-openapi default_test.go TestFormatHostname, invalid
        "somewhere.com!",
        "user@email.domain",
        "1.1.1.1",
        "a".repeat(256),
        `x.y.${longLabel}`,
        "www.example-.org",
        "www.--example.org",
        "-www.example.org",
        "www-.example.org",
        "www.d-.org",
        "www.-d.org",
        "www-",
        "-www",
        "www.ex ample.org",
        "_www.example.org",
        "www.ex;ample.org",
        "www.example_underscored.org",
        "www.詹姆斯.x",
        "a.b.c.d",
        "-xyz",
        "xyz-",
        "x.",
        "a.b.c.dot-",
        "a.b.c.é;ö",
        // single labels with a dash elsewhere than second
        "my-host",
        "ab-c",
        "a-b-c",
        // a TLD has letters only
        "example.c0m",
        "",
        "a".repeat(64), // a single label of 64 is over the 63-byte limit
        `${"é".repeat(32)}.com`, // 32 runes but 64 bytes
      ],
    ),
  );
});

// kube-openapi isIPv4: netutils.ParseIPSloppy (Go 1.16 net.ParseIP) and a "." in the string.
describe("ipv4", () => {
  runCases(
    cases(
      "ipv4",
      [
        "127.0.0.1",
        "192.168.1.1",
        "192.168.1.01", // leading zeros (compatibility with go < 1.17)
        "010.001.002.003",
        "0000000001.1.1.1",
        "255.255.255.255",
        "0.0.0.0",
        "::ffff:1.2.3.4", // IPv6 with an IPv4 tail contains a dot
        "::1.2.3.4",
        "1:2:3:4:5:6:1.2.3.4",
        "::ffff:01.2.3.4",
      ],
      [
        "198.168.254.2.2",
        "1.2.3",
        "1.2.3.256",
        "1.2.3.-1",
        "1.2.3.4 ",
        " 1.2.3.4",
        "1..2.3",
        "1.2.3.4/24",
        "::1", // no dot
        "a.b.c.d",
        "",
        "1.2.3.4%eth0",
        "999999999.1.1.1",
      ],
    ),
  );
});

// govalidator IsIPv6: net.ParseIP (netip.ParseAddr since Go 1.22, no zone) and a ":".
describe("ipv6", () => {
  runCases(
    cases(
      "ipv6",
      [
        "::1",
        "::",
        "2001:db8::68",
        "2001:DB8:0:0:8:800:200C:417A",
        "1:2:3:4:5:6:7:8",
        "::ffff:1.2.3.4",
        "::ffff:0102:0304",
        "1::",
        "1:2:3:4:5:6:1.2.3.4",
        "0001:002:03:4::",
      ],
      [
        "127.0.0.1",
        "1.2.3.4",
        "fe80::1%eth0", // zones are refused
        "00001::", // more than four hex digits in a group
        "::ffff:01.2.3.4", // leading zero in the IPv4 tail
        "1:2:3:4:5:6:7:8:9",
        "1:2:3:4:5:6:7",
        "1::2::3",
        "1:2:3:4:5:6:7:8::", // :: must stand for at least one group
        ":1::",
        "1:",
        "::g",
        "[::1]",
        "",
        "1:2:3:4:5:6:7:1.2.3.4",
        "::1.2.3",
      ],
    ),
  );
});

// kube-openapi isCIDR: netutils.ParseCIDRSloppy (Go 1.16 net.ParseCIDR).
describe("cidr", () => {
  runCases(
    cases(
      "cidr",
      [
        "192.0.2.1/24",
        "192.0.02.1/24", // leading zeros (compatibility with go < 1.17)
        "2001:db8:a0b:12f0::1/32",
        "0.0.0.0/0",
        "1.2.3.4/32",
        "::/128",
        "1.2.3.4/024", // leading zeros in the prefix length
        "00001::/64", // sloppy IPv6 groups
        "::ffff:1.2.3.4/96",
      ],
      [
        "198.168.254.2",
        "2001:db8:a0b:12f0::1",
        "1.2.3.4/33",
        "::/129",
        "1.2.3.4/",
        "1.2.3.4/+8",
        "1.2.3.4/8/8",
        "1.2.3/8",
        "/8",
        "fe80::1%eth0/64",
        "1.2.3.4/ 8",
        "",
      ],
    ),
  );
});

// govalidator IsMAC → net.ParseMAC.
describe("mac", () => {
  runCases(
    cases(
      "mac",
      [
        "01:02:03:04:05:06",
        "01-02-03-04-05-06",
        "0102.0304.0506",
        "ab:CD:ef:01:23:45",
        "01:02:03:04:05:06:07:08", // EUI-64
        "0102.0304.0506.0708",
        "00:00:00:00:fe:80:00:00:00:00:00:00:02:00:5e:10:00:00:00:01", // 20-octet InfiniBand
      ],
      [
        "01:02:03:04:05",
        "01:02:03:04:05:06:07",
        "01:02-03:04:05:06", // mixed separators
        "01.02.03.04.05.06",
        "0102:0304:0506",
        "01:02:03:04:05:0g",
        "1:2:3:4:5:6",
        "01:02:03:04:05:06:",
        "0102.0304.050",
        "010203040506",
        "",
        "０1:02:03:04:05:06",
      ],
    ),
  );
});

// kube-openapi UUIDPattern family: (?i) hex 8-4-4-4-12, each dash optional.
describe("uuid, uuid3, uuid4, uuid5", () => {
  runCases([
    ...cases(
      "uuid",
      [
        "6ba7b810-9dad-11d1-80b4-00c04fd430c8",
        "6BA7B810-9DAD-11D1-80B4-00C04FD430C8",
        "6ba7b8109dad11d180b400c04fd430c8", // dashes optional
        "6ba7b810-9dad11d1-80b400c04fd430c8",
        "00000000-0000-0000-0000-000000000000",
      ],
      [
        "not-a-uuid",
        "6ba7b810-9dad-11d1-80b4-00c04fd430c",
        "6ba7b810-9dad-11d1-80b4-00c04fd430c8a",
        "{6ba7b810-9dad-11d1-80b4-00c04fd430c8}",
        "6ba7b810--9dad-11d1-80b4-00c04fd430c8",
        "6ba7b810-9dad-11d1-80b4-00c04fd430cg",
        "",
      ],
    ),
    ...cases(
      "uuid3",
      [
        "a3bb189e-8bf9-3888-9912-ace4e6543002",
        "A3BB189E8BF938889912ACE4E6543002",
        "a3bb189e-8bf9-3888-c912-ace4e6543002",
      ],
      ["a3bb189e-8bf9-4888-9912-ace4e6543002", "not-a-uuid"],
    ),
    ...cases(
      "uuid4",
      [
        "f47ac10b-58cc-4372-a567-0e02b2c3d479",
        "F47AC10B-58CC-4372-B567-0E02B2C3D479",
        "f47ac10b58cc4372a5670e02b2c3d479",
      ],
      ["f47ac10b-58cc-4372-c567-0e02b2c3d479", "f47ac10b-58cc-3372-a567-0e02b2c3d479", "not-a-uuid"],
    ),
    ...cases(
      "uuid5",
      ["886313e1-3b8a-5372-9b90-0c9aee199e5d", "886313E1-3B8A-5372-8B90-0C9AEE199E5D"],
      ["886313e1-3b8a-5372-cb90-0c9aee199e5d", "886313e1-3b8a-4372-9b90-0c9aee199e5d", "not-a-uuid"],
    ),
  ]);
});

// govalidator IsISBN10 / IsISBN13 / (either) after removing [\s-]+.
describe("isbn, isbn10, isbn13", () => {
  runCases([
    ...cases(
      "isbn10",
      ["0321751043", "0-321-75104-3", "0 321 75104 3", "080442957X", "0\t321\n75104\r3"],
      ["836217463", "0321751042", "080442957x", "0321751043X", "03217510431", "ISBN0321751043", "", "0\u000b321751043"],
    ),
    ...cases(
      "isbn13",
      ["978-0321751041", "9780321751041", "978 0 321 75104 1"],
      ["978-0321751042", "978032175104", "97803217510411", "0321751043", ""],
    ),
    ...cases("isbn", ["0321751043", "978-0321751041", "080442957X"], ["836217463", "978-0321751042", ""]),
  ]);
});

// govalidator IsCreditCard: non-digits removed, issuer pattern, Luhn.
describe("creditcard", () => {
  runCases(
    cases(
      "creditcard",
      [
        "4111-1111-1111-1111",
        "4012-8888-8888-1881",
        "4111111111111111",
        "4222222222222", // 13-digit Visa
        "5555555555554444",
        "378282246310005",
        "6011111111111117",
        "30569309025904",
        "3530111333300000",
        "card 4111 1111 1111 1111 thanks", // every non-digit is dropped
      ],
      [
        "9999-9999-9999-999",
        "4111-1111-1111-1112", // Luhn
        "2223003122003222", // Mastercard 2-series is not in the vendored pattern
        "5105105105105101", // Luhn
        "41111111111111111",
        "",
        "abcd",
      ],
    ),
  );
});

// govalidator IsSSN: 11 bytes and ^\d{3}[- ]?\d{2}[- ]?\d{4}$.
describe("ssn", () => {
  runCases(
    cases(
      "ssn",
      ["111-11-1111", "999 99 9999", "123-45 6789", "123 45-6789"],
      ["999 99 999", "123456789", "123-456789", "12345-6789", "123-45-67890", "abc-de-fghi", "", "１２３-45-6789"],
    ),
  );
});

// govalidator IsHexcolor and IsRGBcolor.
describe("hexcolor, rgbcolor", () => {
  runCases([
    ...cases(
      "hexcolor",
      ["#FFFFFF", "#000000", "#fff", "FFF", "a1b2c3"],
      ["#fffffffz", "#ffff", "#ff", "#gggggg", "", "##fff"],
    ),
    ...cases(
      "rgbcolor",
      ["rgb(255,255,255)", "rgb(0,0,0)", "rgb( 1 , 22 , 199 )", "rgb(\t10,\n20,\r30\f)"],
      [
        "rgb(300,0,0)",
        "rgb(256,0,0)",
        "rgb(01,0,0)",
        "RGB(0,0,0)",
        "rgb(0,0)",
        "rgba(0,0,0,0)",
        "rgb(0,0,0",
        "rgb(0\u000b,0,0)",
        "",
      ],
    ),
  ]);
});

// govalidator IsBase64 (format byte): standard alphabet, padding required.
describe("byte", () => {
  runCases(
    cases(
      "byte",
      ["ZWxpemFiZXRocG9zZXk=", "YWJj", "YQ==", "YWI=", "+/+/", "VGhpcyBpcyBhIGJ5dGUgYXJyYXk="],
      [
        "ZWxpemFiZXRocG9zZXk", // missing pad char
        "",
        "YQ=",
        "YQ",
        "Y===",
        "====",
        "YW=j",
        "YWJj\n",
        "-_-_", // URL alphabet
        "YW Jj",
        "YWJjYQ==YWJj",
      ],
    ),
  );
});

describe("password", () => {
  runCases(cases("password", ["", "super secret stuff here", "\u0000"], []));
});

// kube-openapi IsDate: time.Parse("2006-01-02", s).
describe("date", () => {
  runCases(
    cases(
      "date",
      ["2006-01-02", "2024-02-29", "2000-02-29", "0000-02-29", "9999-12-31", "2023-04-30"],
      [
        "2023-02-29",
        "1900-02-29",
        "2023-04-31",
        "2023-13-01",
        "2023-00-10",
        "2023-01-00",
        "2023-1-01",
        "23-01-01",
        "2023-01-01T00:00:00Z",
        "2023/01/01",
        " 2023-01-01",
        "",
        "20230101",
      ],
    ),
  );
});

// kube-openapi IsDateTime: its own split-on-"t" check, not time.Parse.
describe("datetime", () => {
  runCases(
    cases(
      "datetime",
      [
        "2014-12-15T19:30:20.000Z",
        "2014-12-15T19:30:20Z",
        "2014-12-15t19:30:20z",
        "2014-12-15T19:30:20+01:00",
        "2014-12-15T19:30:20.123456789-07:00",
        "2014-12-15T23:59:59Z",
        "2014-12-15T19:30:20,5Z", // any single rune before the fraction digits
        "2014-12-15T19:30:20x5Z",
        "2014-12-15T19:30:2012Z", // "." matched the digit 1
        "2014-12-15T19:30:20+99:99", // offsets are not range-checked
        "2014-12-15T19:30:20Zt anything after a second t is ignored",
        "2014-12-15T19:30:20Ztrailing",
      ],
      [
        "2014-12-15T19:30:20", // a zone is required
        "2014-12-15T24:00:00Z",
        "2014-12-15T19:60:00Z",
        "2014-12-15T19:30:60Z", // no leap second
        "2014-12-15 19:30:20Z",
        "2014-12-15T19:30Z",
        "2014-12-15T19:30:20.Z",
        "2014-12-15T19:30:201Z",
        "2014-12-15T19:30:20\n5Z",
        "2014-12-15T19:30:20+0100",
        "2014-12-15T19:30:20 Z",
        "2014-02-30T19:30:20Z",
        "2014-12-15",
        "T19:30:20Z",
        "",
      ],
    ),
  );
});

// kube-openapi IsDuration → ParseDuration: time.ParseDuration, else the scala-like scan.
describe("duration", () => {
  runCases(
    cases(
      "duration",
      [
        // Go time.ParseDuration
        "0",
        "-0",
        "+0",
        "0ms",
        "2ms",
        "1h30m",
        "1.5h",
        ".5s",
        "1.s",
        "-1.5h",
        "1µs",
        "1μs", // Greek mu: only Go's parser knows it
        "1ns1us1ms1s1m1h",
        "9223372036854775807ns",
        "-9223372036854775808ns",
        // kube-openapi duration_test.go: short and long forms, with and without spaces
        "1d",
        "1w",
        "1wk",
        "1hr",
        "1nanoseconds",
        "1micros",
        "1millis",
        "1second",
        "1minute",
        "1hour",
        "1day",
        "1week",
        "1  ns",
        "1  µs",
        "1  week",
        "- 1 hour",
        "45 weeks",
        "45 weekz",
        "12 hours",
        "12 minutes",
        "3 DAYS",
        "abc 3 days!", // text around a match is ignored
        "1 parsec 2 days", // one known unit is enough
        "99999999999h", // Go overflows, but the scan accepts it
      ],
      [
        "",
        "yada",
        "three week",
        "9999999999999999999999999999999999999999999999999999999 weeks",
        "12 parsecs",
        "12 y",
        "45 wekk",
        "45 weeekks",
        "12 phours",
        "1hrs", // neither hr nor a prefix of hour
        "1 months",
        "5",
        "-",
        ".s",
        "1.5μ",
        "10000000000000000000μs", // Go overflow, and the scan does not know μ
        "9223372036854775808 hours 1 day", // Atoi overflow fails the whole scan
        "9223372036854775808ns", // Go overflows, and so does Atoi in the scan
      ],
    ),
  );
});

// kube-openapi IsShortName / IsLongName (k8s-short-name, k8s-long-name, 1.34+).
describe("k8s-short-name, k8s-long-name", () => {
  runCases([
    ...cases(
      "k8sshortname",
      ["a", "abc", "a-b", "0", "a1-2b", "a".repeat(63)],
      ["", "A", "a_b", "-a", "a-", "a.b", "a".repeat(64), "ä"],
    ),
    ...cases(
      "k8slongname",
      ["a", "a.b", "example.com", "a-b.c-d", "0.1.2", `${"a".repeat(64)}.b`, "a".repeat(253)],
      ["", "A.b", ".a", "a.", "a..b", "a_b.c", "-a.b", "a-.b", "a".repeat(254)],
    ),
  ]);
});

// How long these take is held by the hostile/format-* bench cases (twice the input, at most 2.5× the time).
describe("checks answer on hostile input", () => {
  it.each([
    { format: "hostname", value: `${"a-".repeat(20_000)}!` },
    { format: "email", value: `${"(".repeat(20_000)}a@b` },
    { format: "duration", value: `${"1".repeat(50_000)} ` },
    { format: "datetime", value: `2014-12-15T19:30:20.${"1".repeat(50_000)}` },
    { format: "k8slongname", value: `${"a.".repeat(100)}!` },
    { format: "uri", value: `http://${"a".repeat(50_000)}%` },
  ])("$format", ({ format, value }) => {
    // Act
    const got = checkStringFormat(format, value);
    // Assess: every one of them is malformed.
    expect(got).toBe(false);
  });
});
