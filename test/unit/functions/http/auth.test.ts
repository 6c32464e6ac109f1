import { describe, expect, it } from "vitest";
import { type AuthResult, bearerAuth } from "../../../../functions/http/auth.js";

describe("bearerAuth", () => {
  it("without a token every request passes", () => {
    expect(bearerAuth(undefined)(undefined)).toBe("none-configured");
  });

  it.each<{ authorization: string | undefined; result: AuthResult }>([
    { authorization: undefined, result: "missing" },
    { authorization: "Bearer t0ken", result: "valid" },
    { authorization: "bearer t0ken", result: "valid" },
    { authorization: "Bearer   t0ken  ", result: "valid" },
    { authorization: "Bearer t0ke", result: "invalid" },
    { authorization: "Bearer t0kenx", result: "invalid" },
    { authorization: "Bearer", result: "invalid" },
    { authorization: "Basic dDBrZW4=", result: "invalid" },
    { authorization: "t0ken", result: "invalid" },
  ])("$authorization → $result", ({ authorization, result }) => {
    expect(bearerAuth("t0ken")(authorization)).toBe(result);
  });
});
