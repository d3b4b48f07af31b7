/** The strict command line (src/cli/stray-arguments.ts): unknown options and stray arguments are refused. */
import { describe, expect, it } from "vitest";
import { strayArgument } from "../../src/cli/stray-arguments";
import { checkRelease } from "../../src/cli/knobs";

const install = {
  yes: { type: "boolean", alias: "y" },
  "dry-run": { type: "boolean" },
  source: { type: "string" },
  release: { type: "string" },
  "modify-path": { type: "boolean" },
};
const verify = { bundle: { type: "positional" } };

describe("strayArgument", () => {
  it("accepts every defined form: flags, --no- forms, aliases, values after a space or =, and --help", () => {
    for (const raw of [
      [],
      ["--yes", "--dry-run"],
      ["-y", "--source", "https://m.test/x", "--release=4.1.0"],
      ["--no-modify-path", "--modify-path=false"],
      ["--help"],
      ["-h"],
    ]) {
      expect(strayArgument(install, raw, "install")).toBeNull();
    }
    expect(strayArgument(verify, ["./gs-bundle"], "verify")).toBeNull();
  });

  it("refuses an unknown option, naming it and the command's help", () => {
    expect(strayArgument(install, ["--yes", "--frobnicate"], "install")).toBe(
      "unknown option --frobnicate for gentle-shell-setup install; see gentle-shell-setup install --help",
    );
    expect(strayArgument(install, ["-x"], "install")).toMatch(/^unknown option -x /);
    expect(strayArgument(install, ["--frobnicate=1"], "install")).toMatch(/^unknown option --frobnicate /);
  });

  it("refuses a value missing after a string option, a value on a boolean, and a stray argument", () => {
    expect(strayArgument(install, ["--source"], "install")).toBe("--source needs a value; see gentle-shell-setup install --help");
    expect(strayArgument(install, ["--source", "--yes"], "install")).toMatch(/^--source needs a value/);
    expect(strayArgument(install, ["--yes=maybe"], "install")).toMatch(/^--yes takes no value/);
    expect(strayArgument(install, ["now"], "install")).toBe('unexpected argument "now" for gentle-shell-setup install; see gentle-shell-setup install --help');
    expect(strayArgument(verify, ["a", "b"], "verify")).toMatch(/^unexpected argument "b"/);
    expect(strayArgument(verify, ["--", "a", "b"], "verify")).toMatch(/^unexpected argument "b"/);
  });
});

describe("checkRelease", () => {
  it("takes an exact version or latest, and refuses anything else with a hint", () => {
    expect(checkRelease(undefined)).toBeUndefined();
    expect(checkRelease("latest")).toBeUndefined();
    expect(checkRelease("4.1.0")).toBe("4.1.0");
    for (const bad of ["banana", "^4.1.0", "v4.1.0", "4.1"]) {
      expect(() => checkRelease(bad)).toThrow(`--release takes an exact Gentle Shell version such as 4.1.0, or latest; not ${JSON.stringify(bad)}`);
    }
  });
});
