/**
 * The docs' commands that change something, run as written in a scratch HOME
 * (issue 47, item 5). docs-commands.test.ts runs the read-only lines and asks
 * every line's --help; this file runs the lines that install, upgrade, roll
 * back, repair, uninstall, migrate and make or check an offline bundle, each
 * in a HOME of its own, and checks the state the docs promise afterwards.
 *
 * How a line is run, and why:
 * - Each line starts from a copy of the run's shared fixture install (its
 *   newest release), or of one at the oldest release for the install and
 *   upgrade lines, which must then bring the newest: a real install in a
 *   scratch HOME, never the developer's.
 * - Where the docs name a place that is not here, the test's stands in for
 *   it: `https://mirror.example/gentle-shell` is the fixture mirror, a
 *   release number the docs show (4.1.0) is the fixture's newest, and
 *   `./gs-bundle` is the bundle the docs' own `bundle --out ./gs-bundle` line
 *   made, in the folder every line starts in. A line without --source gets
 *   GENTLE_SHELL_SOURCE (the official source is not reachable here).
 * - A line whose command asks a question gets --yes, the answer of the user
 *   at the terminal the docs have in mind (without one it would exit 4 and
 *   change nothing, as the exit-code table says).
 * - doctor --fix meets a break to repair: the Engram runtime's binary
 *   removed from the copy, which it downloads again (from the bundle with
 *   --source ./gs-bundle).
 * - An uninstall keeps Pi's own home (agent/) without --include-shared, as
 *   its plan says; everything else of the prefix goes.
 *
 * Lines that are not run here are in NOT_RUN with the reason and the test
 * that runs what they show.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { existsSync, promises as fs } from "node:fs";
import { join } from "pathe";
import { findCommand } from "../../src/cli/index";
import { prefixLayout } from "../../src/core/layout";
import { shellCommandOf } from "../../src/core/shell-commands";
import { fixtures } from "../support/context";
import { type DocCommand, docCommands } from "../support/doc-commands";
import { homeEnv } from "../support/fixtures";
import { installed, type Installed } from "../support/installed";
import { runLauncher } from "../support/launch";
import { type RunResult, runCommand } from "../support/proc";
import { onlyDocument, schemaErrors } from "../support/result-schema";
import { scratchDir } from "../support/scratch";

const f = fixtures();
const [oldest, newest] = [f.releases[0]!, f.releases.at(-1)!];
const MIRROR_IN_DOCS = "https://mirror.example/gentle-shell";
const RELEASE_IN_DOCS = "4.1.0";

/** The changing lines not run here, by their text, each with the reason and where what it shows is run. */
const NOT_RUN: Record<string, string> = {
  ".\\gentle-shell-setup-win-x64.exe install":
    "the Windows binary; the Windows lane (test/wine/lane.sh) runs the win-x64 single executable, and the workflow's windows-latest job installs with it",
  "gentle-shell-setup release build --shell 4.1.0 --pi 1.6.0 --out assets":
    "a maintainer's command whose Node and pnpm come from the official source, which is not reachable here; integration/release-rehearsal.test.ts runs release build from the fixture mirror",
  "gentle-shell-setup release verify --assets assets": "checks what release build made; integration/release-rehearsal.test.ts runs it on the assets it builds",
  "gentle-shell memory migrate --confirm-quiescent":
    "needs a global Engram store with memories in it; integration/engram-migrate.test.ts runs the migration against a real one",
  "gentle-shell-setup migrate": "needs a global gentle-pi installed by npm to migrate from; e2e/migration.test.ts runs it against a real one",
};

/** What each changing command is, or null for a line that only reads (docs-commands.test.ts runs those). */
function kindOf(c: DocCommand): string | null {
  if (c.program === "gentle-shell-setup") {
    const command = findCommand(c.args)?.path.join(" ");
    if (command === "install") return c.args.includes("--dry-run") ? null : "install";
    return command && ["bundle", "verify", "uninstall", "migrate", "release build", "release verify"].includes(command) ? command : null;
  }
  if (c.program !== "gentle-shell") return null;
  const own = shellCommandOf(c.args);
  if (!own) return null;
  if (own.name === "doctor") return own.rest.includes("--fix") ? "doctor --fix" : null;
  if (own.name === "upgrade") return own.rest.includes("--rollback") ? "upgrade --rollback" : "upgrade";
  return ["self-uninstall", "memory migrate"].includes(own.name) ? own.name : null;
}

const lines = docCommands()
  .map((c) => ({ c, kind: kindOf(c) }))
  .filter((l): l is { c: DocCommand; kind: string } => l.kind !== null);
const where = (c: DocCommand) => `${c.file}:${c.line}: ${c.text}`;

/** The folder every line starts in; the docs' ./gs-bundle is made in it. */
let cwd: string;
let bundleRun: RunResult;

beforeAll(async () => {
  cwd = scratchDir("gss-docs-changing-");
  const bundleLine = lines.find((l) => l.kind === "bundle");
  expect(bundleLine, "the docs show how to make an offline bundle").toBeDefined();
  const maker = await installed(f);
  bundleRun = await run(bundleLine!.c, maker);
});

/** A line's words with the docs' stand-ins replaced by this run's places. */
function asHere(args: string[]): string[] {
  return args.map((a) => {
    if (a === MIRROR_IN_DOCS) return f.mirrorUrl;
    if (a === RELEASE_IN_DOCS) return newest.shell;
    return a.replace(/^\$PWD\//, `${cwd}/`);
  });
}

/** Run line `c` as written (see the header) for the install `i`, from `cwd`. */
function run(c: DocCommand, i: Installed): Promise<RunResult> {
  const args = asHere(c.args);
  const asks = ["install", "uninstall"].includes(findCommand(c.args)?.path.join(" ") ?? "") || shellCommandOf(c.args)?.name === "self-uninstall";
  if (asks && !args.includes("--yes")) args.push("--yes");
  const policy = { GSS_TEST_POLICY_ROOT: scratchDir("gss-docs-policy-") };
  if (c.program === "gentle-shell") return runLauncher(i.gs, args, { env: { ...i.env, ...policy }, cwd });
  const word = c.words[0]!;
  // The downloaded binary (./gentle-shell-setup-linux-x64, or on PATH) is the fixture one; a bundle's is its own.
  const program = word.startsWith("./gs-bundle/") ? join(cwd, word) : f.binary!;
  const source = args.includes("--source") ? {} : { GENTLE_SHELL_SOURCE: f.mirrorUrl };
  return runCommand(program, args, { env: homeEnv(i.home, { SHELL: "/bin/bash", ...source, ...policy }), cwd });
}

/** The version line of the launcher in `i`, or its failure. */
async function versionOf(i: Installed): Promise<string> {
  const r = await runLauncher(i.gs, ["--version"], { env: { ...i.env, PI_OFFLINE: "1" }, cwd: i.home });
  return r.code === 0 ? r.stdout.split("\n")[0]! : `exit ${r.code}: ${r.stderr.trim()}`;
}

describe("the docs' changing commands, run in a scratch HOME", () => {
  it("are there, and each one not run is still shown", () => {
    expect(lines.length).toBeGreaterThanOrEqual(25);
    for (const text of Object.keys(NOT_RUN)) expect(lines.map((l) => l.c.text)).toContain(text);
  });

  // Each distinct line once (the same words on two pages make one run), each in its own HOME, side by side.
  const distinct = [...new Map(lines.map((l) => [l.c.text, l] as const)).values()];
  it.concurrent.each(distinct.map((l) => [where(l.c), l] as const))("%s", async (_, { c, kind }) => {
    if (c.text in NOT_RUN) return;
    const show = (r: RunResult) => `${where(c)}\n${r.stdout}${r.stderr}`;
    switch (kind) {
      case "bundle": {
        expect(bundleRun.code, show(bundleRun)).toBe(0);
        expect(existsSync(join(cwd, "gs-bundle", "SHA256SUMS")), where(c)).toBe(true);
        return;
      }
      case "verify": {
        const r = await run(c, await installed(f));
        expect(r.code, show(r)).toBe(0);
        return;
      }
      case "install": {
        // Over an install of the oldest release: the line must bring the newest (the one it names, or latest).
        const i = await installed(f, { release: oldest.shell });
        expect(await versionOf(i)).toBe(`gentle-shell ${oldest.shell}`);
        const r = await run(c, i);
        expect(r.code, show(r)).toBe(0);
        if (c.args.includes("--json")) {
          const doc = onlyDocument(r.stdout);
          expect(schemaErrors(doc), where(c)).toEqual([]);
          expect(doc.ok, where(c)).toBe(true);
        }
        expect(await versionOf(i), where(c)).toBe(`gentle-shell ${newest.shell}`);
        return;
      }
      case "upgrade": {
        const i = await installed(f, { release: oldest.shell });
        expect(await versionOf(i)).toBe(`gentle-shell ${oldest.shell}`);
        const r = await run(c, i);
        expect(r.code, show(r)).toBe(0);
        expect(await versionOf(i), where(c)).toBe(`gentle-shell ${newest.shell}`);
        return;
      }
      case "upgrade --rollback": {
        // As the docs tell it: after an upgrade, back to the version before.
        const i = await installed(f, { release: oldest.shell });
        const up = await runLauncher(i.gs, ["upgrade"], { env: i.env, cwd });
        expect(up.code, up.stdout + up.stderr).toBe(0);
        const r = await run(c, i);
        expect(r.code, show(r)).toBe(0);
        expect(await versionOf(i), where(c)).toBe(`gentle-shell ${oldest.shell}`);
        return;
      }
      case "doctor --fix": {
        const i = await installed(f);
        const layout = prefixLayout({ home: i.home, platform: "linux", pins: f.pins });
        // The break: the Engram runtime's binary gone (in a copy, a hard link of the template's file: only this
        // copy loses it). The repair is the risky one: moved aside, downloaded again, checked, renamed in.
        await fs.rm(layout.engram);
        const before = await runLauncher(i.gs, ["doctor"], { env: i.env, cwd });
        expect(before.stdout, "doctor names the break").toMatch(/^ {2}warn {3}engram \S+ is incomplete: .* is gone/m);
        const r = await run(c, i);
        expect(r.code, show(r)).toBe(0);
        expect(existsSync(layout.engram), where(c)).toBe(true);
        const after = await runLauncher(i.gs, ["doctor"], { env: i.env, cwd });
        expect(after.code, `${where(c)}: doctor afterwards\n${after.stdout}${after.stderr}`).toBe(0);
        expect(after.stdout, where(c)).not.toContain("is incomplete");
        return;
      }
      case "uninstall":
      case "self-uninstall": {
        const i = await installed(f);
        const r = await run(c, i);
        expect(r.code, show(r)).toBe(0);
        expect(r.stdout, where(c)).toContain("Gentle Shell is uninstalled.");
        // Pi's own home (sessions, settings) is shared with what the user keeps: it stays without --include-shared.
        expect(r.stdout, where(c)).toContain("Kept unless you agree below (or pass --include-shared): ~/.gentle-shell/agent");
        expect(await fs.readdir(i.prefix), where(c)).toEqual(["agent"]);
        expect(existsSync(i.gs), where(c)).toBe(false);
        return;
      }
      default:
        throw new Error(`${where(c)}: a changing command this file does not run (${kind}); run it here or list it in NOT_RUN`);
    }
  });
});
