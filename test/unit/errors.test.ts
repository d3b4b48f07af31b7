/** A user error is one sentence and its exit code; only a mistake of ours is a bug, printed with its stack. */
import { describe, expect, it } from "vitest";
import { EXIT, isBug, UserError } from "../../src/core/errors";

describe("isBug", () => {
  it("is false for a user error and for what the machine or the input says", () => {
    expect(isBug(new UserError("no terminal to ask; run again with --yes", EXIT.usage))).toBe(false);
    expect(isBug(Object.assign(new Error("ENOENT: no such file"), { code: "ENOENT" }))).toBe(false);
    let invalidUrl: unknown;
    try {
      new URL("http://[bad");
    } catch (error) {
      invalidUrl = error;
    }
    expect(invalidUrl).toBeInstanceOf(TypeError);
    expect(isBug(invalidUrl)).toBe(false);
    let badJson: unknown;
    try {
      JSON.parse("{oops");
    } catch (error) {
      badJson = error;
    }
    expect(isBug(badJson)).toBe(false);
  });

  it("is true for the language's own TypeError, a ReferenceError and a thrown non-error", () => {
    let typeError: unknown;
    try {
      (undefined as unknown as { x: number }).x;
    } catch (error) {
      typeError = error;
    }
    expect(isBug(typeError)).toBe(true);
    expect(isBug(new ReferenceError("x is not defined"))).toBe(true);
    expect(isBug("a string")).toBe(true);
  });

  it("keeps the exit code a user error was given", () => {
    expect(new UserError("x").exitCode).toBe(EXIT.failure);
    expect(new UserError("x", EXIT.usage).exitCode).toBe(2);
  });
});
