// The Go-compatible JSON reading and writing behind the server's error texts.
import { bindJson, goAtoi, INSTALL_BODY, NODE_BODY } from "../../simulator/gobind";
import { decodeGo, goJson } from "../../simulator/gojson";

const err = (text: string): string | undefined => {
  const r = decodeGo(text);
  return r.ok ? undefined : r.error;
};

describe("decodeGo: json.Decoder's syntax errors", () => {
  test.each([
    ["", "EOF"],
    ["   \n", "EOF"],
    ["{", "unexpected EOF"],
    ['{"a":', "unexpected EOF"],
    ['{"a":"b', "unexpected EOF"],
    ["x", "invalid character 'x' looking for beginning of value"],
    ["{x", "invalid character 'x' looking for beginning of object key string"],
    ['{"a",', "invalid character ',' after object key"],
    ['{"a":1 2', "invalid character '2' after object key:value pair"],
    ['{"a":1,}', "invalid character '}' looking for beginning of object key string"],
    ["[1 2]", "invalid character '2' after array element"],
    ["[1,]", "invalid character ']' looking for beginning of value"],
    ['{"a":tru}', "invalid character '}' in literal true (expecting 'e')"],
    ['{"a":-x}', "invalid character 'x' in numeric literal"],
    ['{"a":1.x}', "invalid character 'x' after decimal point in numeric literal"],
    ['{"a":1ex}', "invalid character 'x' in exponent of numeric literal"],
    ['{"a":"\\q"}', "invalid character 'q' in string escape code"],
    ['{"a":"\u0001"}', "invalid character '\\x01' in string literal"],
    ['{"a":"\n"}', "invalid character '\\n' in string literal"],
    ["'a'", "invalid character '\\'' looking for beginning of value"],
    // a non-ASCII character shows as its first UTF-8 byte
    ["é", "invalid character 'Ã' looking for beginning of value"],
    ["\\", "invalid character '\\\\' looking for beginning of value"],
  ])("%j -> %s", (input, expected) => {
    expect(err(input)).toBe(expected);
  });

  test("only the first value is read (trailing bytes are left to the next Decode)", () => {
    expect(decodeGo('{"a":1} garbage')).toEqual({
      ok: true,
      value: { kind: "object", entries: [["a", { kind: "number", raw: "1" }]] },
    });
  });
});

describe("bindJson: ShouldBindJSON into the server's structs", () => {
  test("a good install body", () => {
    expect(bindJson(INSTALL_BODY, '{"os":"debian","version":"12","cpu":4,"name":"x","unknown":[1]}')).toEqual({
      ok: true,
      value: expect.objectContaining({ os: "debian", version: "12", cpu: 4, name: "x", ram: 0, disk: "" }),
    });
  });

  test("int64 overflow and exponents are type errors with the literal", () => {
    expect(bindJson(INSTALL_BODY, '{"os":"debian","version":"12","ram":1e3}')).toEqual({
      ok: false,
      error: "json: cannot unmarshal number 1e3 into Go struct field Config.ram of type int",
    });
    expect(bindJson(INSTALL_BODY, '{"id":9223372036854775808}')).toEqual({
      ok: false,
      error: "json: cannot unmarshal number 9223372036854775808 into Go struct field Config.id of type int",
    });
  });

  test("objects, arrays and bools in scalar fields", () => {
    expect(bindJson(NODE_BODY, '{"node":{"name":"pve2"}}')).toEqual({
      ok: false,
      error: "json: cannot unmarshal object into Go struct field reqBody.node of type string",
    });
    expect(bindJson(NODE_BODY, "true")).toEqual({
      ok: false,
      error: "json: cannot unmarshal bool into Go value of type handler.reqBody",
    });
  });

  test("a null body binds to zero values and fails validation", () => {
    expect(bindJson(NODE_BODY, "null")).toEqual({
      ok: false,
      error: "Key: 'reqBody.Node' Error:Field validation for 'Node' failed on the 'required' tag",
    });
  });

  test("goAtoi is strconv.Atoi", () => {
    expect(goAtoi("32")).toEqual({ value: 32, ok: true });
    expect(goAtoi("+7")).toEqual({ value: 7, ok: true });
    expect(goAtoi("20.5")).toEqual({ value: 0, ok: false });
    expect(goAtoi("")).toEqual({ value: 0, ok: false });
  });

  test("goJson escapes like encoding/json", () => {
    expect(goJson({ m: "a<b>&c\u2028", n: [1, 2.5, true, null] })).toBe(
      '{"m":"a\\u003cb\\u003e\\u0026c\\u2028","n":[1,2.5,true,null]}',
    );
  });
});
