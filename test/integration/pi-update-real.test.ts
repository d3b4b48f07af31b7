/**
 * classifyUpdate against the real Pi 1.6.0's own reading of `pi update ...`
 * (spec: Pi updates (S5)), for every sequence of up to three words from a set
 * that covers each branch. The oracle is Pi's parsePackageCommand, taken from
 * dist/package-manager-cli.js of the Pi a fixture install holds: the module
 * does not export it, so its text is compiled on its own (it reads nothing
 * but its argument), and it is the function that module's
 * handlePackageCommand calls. What Pi then does with it is handlePackageCommand's
 * order: help first, then any refusal, then the update target.
 */
import { readFile } from "node:fs/promises";
import { Script } from "node:vm";
import { join } from "pathe";
import { beforeAll, describe, expect, it } from "vitest";
import { PI_PACKAGE } from "../../src/core/release-project";
import { classifyUpdate, FORCE_REFUSAL, type UpdateForm } from "../../src/core/pi-update";
import { fixtures } from "../support/context";
import { FIXTURE_PI } from "../support/fixtures";
import { installed } from "../support/installed";

const f = fixtures();
const latest = f.releases[f.releases.length - 1]!;

/** The fields of Pi's parsePackageCommand result that decide what `pi update` does. */
interface PiOptions {
  command: string;
  help: boolean;
  force: boolean;
  projectTrustOverride: boolean | undefined;
  invalidOption?: string;
  invalidArgument?: string;
  missingOptionValue?: string;
  conflictingOptions?: string;
  updateTarget?: { type: "self" | "all" | "extensions" | "models" };
}

let parsePackageCommand: (args: string[]) => PiOptions | undefined;

beforeAll(async () => {
  const pi = join((await installed(f)).prefix, "versions", latest.id, "node_modules", PI_PACKAGE);
  expect(JSON.parse(await readFile(join(pi, "package.json"), "utf8")).version).toBe(FIXTURE_PI);
  const source = await readFile(join(pi, "dist", "package-manager-cli.js"), "utf8");
  expect(source).toContain("const options = parsePackageCommand(args);");
  // A top-level function of tsc's output: from its first line to the first closing brace at the start of a line.
  const start = source.indexOf("\nfunction parsePackageCommand(args) {\n");
  expect(start, "Pi's dist/package-manager-cli.js has no parsePackageCommand").toBeGreaterThan(0);
  const text = source.slice(start, source.indexOf("\n}\n", start) + 2);
  parsePackageCommand = new Script(`(${text})`, { filename: "pi-coding-agent/dist/package-manager-cli.js" }).runInNewContext({});
});

type Target = "self" | "all" | "extensions" | "models" | "refused" | "help";

/** `pi update <args>` as Pi 1.6.0 reads it; --latest is our alias for --self, which Pi does not know. */
function piReads(args: readonly string[]): { target: Target; force: boolean; trust: boolean | undefined } {
  const options = parsePackageCommand(["update", ...args.map((a) => (a === "--latest" ? "--self" : a))]);
  if (options?.command !== "update") throw new Error(`Pi did not read ${JSON.stringify(args)} as an update`);
  const refused = Boolean(options.invalidOption || options.missingOptionValue || options.invalidArgument || options.conflictingOptions);
  const target = options.help ? "help" : refused ? "refused" : options.updateTarget!.type;
  return { target, force: options.force, trust: options.projectTrustOverride };
}

function expected(args: readonly string[]): UpdateForm["kind"] {
  const { target, force } = piReads(args);
  if (target === "self" || target === "all") return force ? "refuse" : "select";
  return "pass";
}

const TRUST = ["-a", "--approve", "-na", "--no-approve"];
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
  "--no-approve",
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

describe("classifyUpdate against the real Pi's parser", () => {
  it("reads the forms of the spec as Pi does", () => {
    expect(piReads([]).target).toBe("self");
    expect(piReads(["--all"]).target).toBe("all");
    expect(piReads(["pi", "--extensions"]).target).toBe("all");
    expect(piReads(["--extensions"]).target).toBe("extensions");
    expect(piReads(["--models"]).target).toBe("models");
    expect(piReads(["--all", "pi"]).target).toBe("refused");
    expect(piReads(["--bogus"]).target).toBe("refused");
    expect(piReads(["pi", "extra"]).target).toBe("refused");
    // Its check of an unexpected argument is falsy for an empty one, which stays the first.
    expect(piReads(["pi", "", "extra"]).target).toBe("self");
    expect(piReads(["--self", "--help"]).target).toBe("help");
    expect(piReads(["--force"])).toEqual({ target: "self", force: true, trust: undefined });
  });

  it("agrees with Pi 1.6.0's parser on every sequence of up to three words", () => {
    let count = 0;
    for (let n = 0; n <= 3; n++) {
      for (const args of sequences(n)) {
        const form = classifyUpdate(args);
        const pi = piReads(args);
        expect(form.kind, JSON.stringify(args)).toBe(expected(args));
        if (form.kind === "select") {
          expect(form.all, JSON.stringify(args)).toBe(pi.target === "all");
          // The flags as given, for the update --extensions of an all form; Pi takes the last one.
          expect(form.trust, JSON.stringify(args)).toEqual(args.filter((a) => TRUST.includes(a)));
          const last = form.trust[form.trust.length - 1];
          expect(last === undefined ? undefined : last === "-a" || last === "--approve", JSON.stringify(args)).toBe(pi.trust);
        }
        if (form.kind === "refuse") expect(form.message).toBe(FORCE_REFUSAL);
        count++;
      }
    }
    expect(count).toBe(1 + WORDS.length + WORDS.length ** 2 + WORDS.length ** 3);
  });
});
