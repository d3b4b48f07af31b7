/**
 * classifyUpdate for the named forms of the spec (S5), newestStablePi and
 * unlockedProject. Every sequence of up to three words is checked against
 * the real Pi 1.6.0's own parser in test/integration/pi-update-real.test.ts.
 */
import { describe, expect, it } from "vitest";
import { classifyUpdate, FORCE_REFUSAL, newestStablePi, unlockedProject, unlockedWarning } from "../../src/core/pi-update";
import { distributionFiles } from "../../src/core/release-project";

describe("classifyUpdate", () => {
  it.each([
    [[], false],
    [["--self"], false],
    [["self"], false],
    [["pi"], false],
    [["--latest"], false],
    [["--all"], true],
    [["self", "--extensions"], true],
    [["pi", "--extensions"], true],
    [["--extensions", "pi"], true],
    [["--self", "--extensions"], true],
    [["--latest", "--extensions"], true],
    [["--self", "self"], false],
    // Pi 1.6.0 refuses an unexpected argument only when the first one is not empty (its check is falsy for "").
    [["pi", ""], false],
    [["self", "", "extra"], false],
    [["pi", "", "--extensions"], true],
  ])("selects the newest Pi for %j (all: %s)", (args, all) => {
    expect(classifyUpdate(args)).toEqual({ kind: "select", all, trust: [] });
  });

  it("keeps the project-trust flags for the update --extensions of an all form", () => {
    expect(classifyUpdate(["--all", "-a"])).toEqual({ kind: "select", all: true, trust: ["-a"] });
    expect(classifyUpdate(["-na", "pi", "--extensions", "--approve"])).toEqual({ kind: "select", all: true, trust: ["-na", "--approve"] });
  });

  it.each([
    [["--extensions"]],
    [["--models"]],
    [["npm:gentle-engram"]],
    [["git:github.com/user/repo"]],
    [["--extension", "npm:foo"]],
    [["help"]],
    [["--help"]],
    [["--self", "--help"]],
    [["--force", "-h"]],
    [["--all", "--self"]],
    [["--all", "pi"]],
    [["self", "--models"]],
    [["npm:foo", "--self"]],
    [["--latest", "--models"]],
    [["--bogus"]],
    [["-l"]],
    [["self", "extra"]],
    [["--extension"]],
    [["--extension", "--self"]],
    [["--extension", "a", "--extension", "b"]],
    [["--extensions", "--force"]],
    [["npm:foo", "--force"]],
  ])("hands %j to Pi unchanged", (args) => {
    expect(classifyUpdate(args)).toEqual({ kind: "pass" });
  });

  it.each([[["--force"]], [["self", "--force"]], [["--all", "--force"]], [["--latest", "--force"]], [["pi", "--extensions", "--force"]]])(
    "refuses %j with one sentence",
    (args) => {
      const form = classifyUpdate(args);
      expect(form).toEqual({ kind: "refuse", message: FORCE_REFUSAL });
      expect(FORCE_REFUSAL.split(/\.\s/)).toHaveLength(1);
      expect(FORCE_REFUSAL).not.toContain("\n");
    },
  );
});

describe("newestStablePi", () => {
  const doc = (versions: Record<string, object>, latest?: string) => ({ "dist-tags": latest ? { latest } : {}, versions });

  it("is the highest stable exact version published, whatever dist-tags.latest names", () => {
    expect(newestStablePi(doc({ "1.6.0": {}, "1.7.0": {}, "1.10.0": {}, "1.9.3": {} }, "1.7.0"))).toBe("1.10.0");
  });

  it("passes over a pre-release that latest names, and deprecated releases", () => {
    expect(newestStablePi(doc({ "1.6.0": {}, "1.7.0-beta.1": {} }, "1.7.0-beta.1"))).toBe("1.6.0");
    expect(newestStablePi(doc({ "1.6.0": {}, "1.6.1": { deprecated: "broken" } }, "1.6.1"))).toBe("1.6.0");
    expect(newestStablePi(doc({ "1.6.0": {}, "v1.9.0": {}, "1.8": {}, "2.0.0+build": {} }))).toBe("1.6.0");
  });

  it("refuses, changing nothing, when the registry lists no stable release", () => {
    for (const bad of [doc({ "1.7.0-beta.1": {} }, "1.7.0-beta.1"), doc({}), { versions: null }, null, "text", 1]) {
      expect(() => newestStablePi(bad), JSON.stringify(bad)).toThrow(/no stable Pi release .*; nothing was changed$/);
    }
  });
});

describe("unlockedProject", () => {
  it("is exactly the two pins with no lockfile", () => {
    expect(unlockedProject("4.1.0", "1.6.0")).toEqual({
      manifest: { shell: "4.1.0", pi: "1.6.0", id: "4.1.0-1.6.0" },
      files: distributionFiles({ shell: "4.1.0", pi: "1.6.0" }),
      lockfile: null,
    });
    expect(unlockedWarning("4.1.0", "1.6.0")).toMatch(/^Warning: .*without a release's verified lockfile/);
  });
});
