/**
 * The fleet scenario (issue 47, item 2): an administrator's machine-wide
 * policy file (under the test build's GSS_TEST_POLICY_ROOT) and a user's
 * GENTLE_SHELL_UPDATES=on, through the fixture binary and the installed
 * launcher. Locked `off`: a rerun of the install to a newer release,
 * `upgrade`, `upgrade --to`, `update`, `migrate` and the launcher's Pi
 * `update --extensions` each refuse in one sentence naming the file, exit 4,
 * and the prefix is byte for byte as it was; a rerun without --release only
 * repairs the active version, and says so. With "enforce": false the file's
 * `off` is a default, and the user's `on` wins for each of them.
 */
import { describe, expect, it } from "vitest";
import { promises as fs } from "node:fs";
import { join } from "pathe";
import { fixtures } from "../support/context";
import { homeEnv } from "../support/fixtures";
import { gentleShellSetup, installed, runInstall } from "../support/installed";
import { policyRoot } from "../support/policy-root";
import { runCommand, type RunResult } from "../support/proc";
import { treeSnapshot } from "../support/tree";

const f = fixtures();
const [older, latest] = [f.releases[0]!, f.releases[f.releases.length - 1]!];

function gs(home: string, args: string[], extra: NodeJS.ProcessEnv = {}) {
  return runCommand(join(home, ".gentle-shell", "bin", "gentle-shell"), args, { env: homeEnv(home, extra), cwd: home });
}

const current = (home: string) => fs.readlink(join(home, ".gentle-shell", "current"));

/** Every path that changes the installed version, as the user runs it, with the command its sentence names. */
function paths(home: string, env: NodeJS.ProcessEnv): Array<[string, () => Promise<RunResult>, string]> {
  return [
    ["install rerun", () => runInstall(f, home, ["--release", latest.shell], { env }), `gentle-shell-setup install --release ${latest.shell}`],
    ["upgrade", () => gs(home, ["upgrade"], env), "gentle-shell upgrade"],
    ["upgrade --to", () => gs(home, ["upgrade", "--to", latest.shell], env), `gentle-shell upgrade --to ${latest.shell}`],
    ["update", () => gs(home, ["update"], env), "gentle-shell update"],
    ["migrate", () => gentleShellSetup(f, home, ["migrate", "--source", f.mirrorUrl], env), "gentle-shell-setup migrate"],
    ["Pi's update --extensions", () => gs(home, ["update", "--extensions"], env), "gentle-shell update --extensions"],
  ];
}

describe.concurrent("a fleet's machine-wide policy against a user's GENTLE_SHELL_UPDATES=on", () => {
  it("locked off: every path that changes the version refuses in one sentence naming the file, and the prefix is unchanged", async () => {
    const { home, prefix } = await installed(f, { release: older.shell });
    const { root, file } = await policyRoot('{ "updates": "off" }\n');
    const env = { GSS_TEST_POLICY_ROOT: root, GENTLE_SHELL_UPDATES: "on" };
    const before = await treeSnapshot(prefix);
    for (const [what, run, command] of paths(home, env)) {
      const r = await run();
      const prefixOf = command.startsWith("gentle-shell-setup") ? "gentle-shell-setup" : "gentle-shell";
      expect(r.stderr.trim(), what).toBe(`${prefixOf}: ${command} was not run: updates are off by the machine-wide policy ${file}; nothing was changed.`);
      expect(r.stdout, what).toBe("");
      expect(r.code, what).toBe(4);
      expect(await treeSnapshot(prefix), what).toEqual(before);
    }
    // A rerun without --release is a repair of the active version: it runs, says so, and changes no version.
    const repair = await runInstall(f, home, [], { env });
    expect(repair.code, repair.stdout + repair.stderr).toBe(0);
    expect(repair.stdout).toContain(
      `Updates are off, so this install reinstalls the active Gentle Shell ${older.shell} (a repair) rather than a newer release.`,
    );
    expect(await current(home)).toBe(`versions/${older.id}`);
    expect(await fs.readdir(join(prefix, "versions"))).toEqual([older.id]);
  });

  it("\"enforce\": false: the file's off is a default, and the user's on wins on every path", async () => {
    const { home } = await installed(f, { release: older.shell });
    const { root } = await policyRoot('{ "enforce": false, "updates": "off" }\n');
    const env = { GSS_TEST_POLICY_ROOT: root, GENTLE_SHELL_UPDATES: "on" };
    const results: Record<string, RunResult> = {};
    for (const [what, run] of paths(home, env)) {
      results[what] = await run();
      expect(results[what]!.stdout + results[what]!.stderr, what).not.toMatch(/was not run: updates are off/);
    }
    const code = (what: string) => [results[what]!.code, results[what]!.stdout + results[what]!.stderr] as const;
    // The install rerun moved to the newer release; upgrade and --to then found it current.
    expect(code("install rerun")[0], code("install rerun")[1]).toBe(0);
    expect(await current(home)).toBe(`versions/${latest.id}`);
    expect(results.upgrade!.stdout).toMatch(/already current|nothing was changed/);
    expect(code("upgrade --to")[0], code("upgrade --to")[1]).toBe(0);
    expect(code("Pi's update --extensions")[0], code("Pi's update --extensions")[1]).toBe(0);
    // migrate is past the policy: it looks for a global gentle-pi, and there is none.
    expect(results.migrate!.stderr).toMatch(/Nothing to migrate/);
    // Without the user's on, the default holds: off, named as the machine-wide defaults.
    const held = await gs(home, ["upgrade"], { GSS_TEST_POLICY_ROOT: root });
    expect(held.stderr).toContain("updates are off by the machine-wide defaults");
    expect(held.code).toBe(4);
  });
});
