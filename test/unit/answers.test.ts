import { describe, expect, it } from "vitest";
import { answeredYes } from "../../src/core/answers";
import { fancyOutput } from "../../src/core/terminal-style";

describe("the one reading of a yes/no answer (install's [Y/n], the removal's and self-uninstall's [y/N])", () => {
  it("y and yes in any case, with spaces around, are yes whatever the default", () => {
    for (const answer of ["y", "Y", "yes", " YES ", "Yes\t"]) {
      expect(answeredYes(answer, "no")).toBe(true);
      expect(answeredYes(answer, "yes")).toBe(true);
    }
  });

  it("an empty line takes the question's default", () => {
    expect(answeredYes("", "yes")).toBe(true);
    expect(answeredYes("  ", "yes")).toBe(true);
    expect(answeredYes("", "no")).toBe(false);
  });

  it("anything else, and end of input, is no", () => {
    for (const answer of ["n", "no", "yep", "y y", "ja", "1"]) {
      expect(answeredYes(answer, "yes")).toBe(false);
      expect(answeredYes(answer, "no")).toBe(false);
    }
    expect(answeredYes(null, "yes")).toBe(false);
  });
});

describe("the one colour decision", () => {
  it("a terminal gets colours unless TERM=dumb, NO_COLOR or CI (other than false or 0) says no", () => {
    const tty = { isTTY: true };
    expect(fancyOutput(tty, {})).toBe(true);
    expect(fancyOutput({ isTTY: false }, {})).toBe(false);
    expect(fancyOutput({}, {})).toBe(false);
    expect(fancyOutput(tty, { TERM: "dumb" })).toBe(false);
    expect(fancyOutput(tty, { NO_COLOR: "1" })).toBe(false);
    expect(fancyOutput(tty, { NO_COLOR: "" })).toBe(true);
    expect(fancyOutput(tty, { CI: "true" })).toBe(false);
    expect(fancyOutput(tty, { CI: "false" })).toBe(true);
    expect(fancyOutput(tty, { CI: "0" })).toBe(true);
  });
});
