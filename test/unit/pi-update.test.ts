/**
 * classifyUpdate against Pi 1.6.0's own reading of `pi update ...`
 * (parsePackageCommand in dist/package-manager-cli.js, transliterated below
 * as the oracle), for every sequence of up to three words from a set that
 * covers each branch, plus the named forms of the spec (S5).
 */
import { describe, expect, it } from "vitest";
import { classifyUpdate, FORCE_REFUSAL, newestStablePi, unlockedProject, unlockedWarning, type UpdateForm } from "../../src/core/pi-update";
import { distributionFiles } from "../../src/core/distribution";

type Target = "self" | "all" | "extensions" | "models" | "refused" | "help";

/** Pi 1.6.0's parsePackageCommand for `update`, reduced to what it does; --latest is our alias for --self. */
function piReads(args: readonly string[]): { target: Target; force: boolean } {
  let help = false;
  let invalid = false;
  let conflict = false;
  let force = false;
  let self = false;
  let extensions = false;
  let models = false;
  let all = false;
  let ext: string | undefined;
  let source: string | undefined;
  for (let i = 0; i < args.length; i++) {
    const a = args[i]!;
    if (a === "-h" || a === "--help") help = true;
    else if (a === "-l" || a === "--local") invalid = true;
    else if (a === "--self" || a === "--latest") self = true;
    else if (a === "--extensions") extensions = true;
    else if (a === "--models") models = true;
    else if (a === "--all") all = true;
    else if (a === "--approve" || a === "-a" || a === "--no-approve" || a === "-na") continue;
    else if (a === "--force") force = true;
    else if (a === "--extension") {
      const v = args[i + 1];
      if (!v || v.startsWith("-")) invalid = true;
      else if (ext) {
        conflict = true;
        i++;
      } else {
        ext = v;
        i++;
      }
    } else if (a.startsWith("-")) invalid = true;
    else if (!source) source = a;
    else invalid = true;
  }
  if (help) return { target: "help", force };
  if (all && (self || extensions || models || ext)) conflict = true;
  if (all && source) conflict = true;
  let target: Target;
  if (models) {
    if (self || extensions || all || ext || source) conflict = true;
    target = "models";
  } else if (ext) {
    if (self || extensions || all || source) conflict = true;
    target = "extensions";
  } else if (source) {
    if (source === "self" || source === "pi") target = extensions ? "all" : "self";
    else {
      if (extensions || self || all) conflict = true;
      target = "extensions";
    }
  } else if (all) target = "all";
  else if (self && extensions) target = "all";
  else if (self) target = "self";
  else if (extensions) target = "extensions";
  else target = "self";
  return { target: invalid || conflict ? "refused" : target, force };
}

function expected(args: readonly string[]): UpdateForm["kind"] {
  const { target, force } = piReads(args);
  if (target === "self" || target === "all") return force ? "refuse" : "select";
  return "pass";
}

const WORDS = [
  "--self",
  "--latest",
  "self",
  "pi",
  "--all",
  "--extensions",
  "--models",
  "--force",
  "--help",
  "-h",
  "-a",
  "-na",
  "--extension",
  "npm:foo",
  "--bogus",
  "-l",
  "",
];

function* sequences(length: number): Generator<string[]> {
  if (length === 0) {
    yield [];
    return;
  }
  for (const rest of sequences(length - 1)) for (const w of WORDS) yield [...rest, w];
}

describe("classifyUpdate", () => {
  it("agrees with Pi 1.6.0's parser on every sequence of up to three words", () => {
    let count = 0;
    for (let n = 0; n <= 3; n++) {
      for (const args of sequences(n)) {
        const form = classifyUpdate(args);
        expect(form.kind, JSON.stringify(args)).toBe(expected(args));
        if (form.kind === "select") {
          expect(form.all, JSON.stringify(args)).toBe(piReads(args).target === "all");
          expect(form.trust).toEqual(args.filter((a) => ["-a", "--approve", "-na", "--no-approve"].includes(a)));
        }
        if (form.kind === "refuse") expect(form.message).toBe(FORCE_REFUSAL);
        count++;
      }
    }
    expect(count).toBe(1 + 17 + 17 ** 2 + 17 ** 3);
  });

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
