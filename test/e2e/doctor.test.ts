/**
 * `doctor` (issue 41) on real installs by the fixture binary, broken the way
 * users break them: the launcher edited, the PATH line gone from .bashrc,
 * an upgrade killed mid-way (its version folder still `installing` by a gone
 * process), a staging folder and the installers' lock left, the setup
 * marker gone, a global npm gentle-pi on PATH, and our bin on PATH twice
 * (once through a link). doctor names each break once; `--fix` repairs what
 * is ours, after which `status` is healthy and the tree of the whole home
 * shows exactly the repair; a second `--fix` changes nothing. The launcher
 * gone: `gentle-shell-setup doctor --fix` writes it again. A foreign file
 * where the launcher should be is named, never replaced. `doctor --fix`
 * killed at each repair (held there, ../support/kill-at.ts), a runtime's
 * included, converges on rerun. A lost setup marker is written back when
 * setup's work (Engram) is in place. `gentle-shell -- doctor`
 * still reaches Pi as its first message.
 */
import { promises as fs } from "node:fs";
import { join } from "pathe";
import { describe, expect, it } from "vitest";
import { fixtures } from "../support/context";
import { installed, type Installed } from "../support/installed";
import { offlineBundle } from "../support/offline-bundle";
import { piEnv, requestTurns } from "../support/pi-home";
import { killGroupAt } from "../support/kill-at";
import { runCommand } from "../support/proc";
import { onlyDocument, schemaErrors } from "../support/result-schema";
import { stubModelClient, writeStubModelConfig } from "../support/stub-model";
import { Terminal } from "../support/tmux";
import { treeSnapshot } from "../support/tree";

type Tree = Awaited<ReturnType<typeof treeSnapshot>>;

const f = fixtures();
const latest = f.releases[f.releases.length - 1]!;
/** No process has this id (above Linux's pid_max). */
const GONE = 99_999_999;
const NEXT = "9.9.9-9.9.9";

function run(i: Installed, command: string, args: string[], env: NodeJS.ProcessEnv = {}) {
  return runCommand(command, args, { env: { ...i.env, ENGRAM_STARTUP_POLICY: "disabled", ...env }, cwd: i.home });
}

/** A global npm install of gentle-pi, as npm lays one out: bin/gentle-shell, a link into lib/node_modules. */
async function npmGlobal(root: string): Promise<string> {
  const pkg = join(root, "npm-global", "lib", "node_modules", "gentle-pi", "bin");
  await fs.mkdir(pkg, { recursive: true });
  await fs.writeFile(join(pkg, "gentle-shell.mjs"), "#!/usr/bin/env node\nconsole.log('old global gentle-shell');\n", { mode: 0o755 });
  await fs.mkdir(join(root, "npm-global", "bin"));
  await fs.symlink("../lib/node_modules/gentle-pi/bin/gentle-shell.mjs", join(root, "npm-global", "bin", "gentle-shell"));
  return join(root, "npm-global", "bin");
}

/** The breaks doctor --fix repairs, and the setup marker, which it names with its command. */
async function breakInstall(i: Installed): Promise<void> {
  await fs.appendFile(join(i.prefix, "bin", "gentle-shell"), "echo edited by hand\n");
  const bashrc = join(i.home, ".bashrc");
  await fs.writeFile(bashrc, (await fs.readFile(bashrc, "utf8")).replace(/^.*# gentle-shell bundled install\n/m, ""));
  const next = join(i.prefix, "versions", NEXT);
  await fs.mkdir(join(next, "node_modules", "gentle-pi"), { recursive: true });
  await fs.writeFile(join(next, "node_modules", "gentle-pi", "package.json"), "{}\n");
  await fs.writeFile(join(next, ".gentle-shell-version"), `installing ${NEXT} ${GONE}\n`);
  await fs.mkdir(join(i.prefix, "runtime", `.staging-node-${GONE}-0a1b2c3d`, "bin"), { recursive: true });
  await fs.writeFile(join(i.prefix, "runtime", `.staging-node-${GONE}-0a1b2c3d`, "bin", "node"), "partial");
  await fs.writeFile(join(i.prefix, ".gentle-shell-setup.lock"), `${GONE} 00112233aabbccdd\n`);
  await fs.rm(join(i.prefix, "config", "setup.json"));
}

const SETUP_JSON = "home/.gentle-shell/config/setup.json";

/**
 * --fix wrote setup's record back: done, by doctor, for the active version,
 * with the mode setup gives it. Returns the healthy tree with that record's
 * bytes (its time is the repair's), to compare the whole tree against.
 */
async function withSetupRecord(i: Installed, healthy: Tree, now: Tree): Promise<Tree> {
  const record = JSON.parse(await fs.readFile(join(i.prefix, "config", "setup.json"), "utf8"));
  expect(record).toMatchObject({ schema: 1, status: "done", by: "doctor", version: latest.id });
  expect({ ...now[SETUP_JSON], sha256: null }).toEqual({ ...healthy[SETUP_JSON], sha256: null });
  return { ...healthy, [SETUP_JSON]: now[SETUP_JSON]! };
}

describe("doctor on a real install", () => {
  it("a healthy install: exit 0 from the launcher and from the installer, one --json document, and nothing written", async () => {
    const i = await installed(f);
    const before = await treeSnapshot(i.root);
    const lines = await run(i, i.gs, ["doctor"]);
    expect(lines.code, lines.stdout + lines.stderr).toBe(0);
    expect(lines.stdout).toContain(`  ok     active version ${latest.id} (gentle-pi ${latest.shell}, Pi ${latest.pi})`);
    expect(lines.stdout).toContain("  ok     ~/.gentle-shell/bin/gentle-shell is exactly what this version writes");
    expect(lines.stdout).toContain("  ok     our PATH line is in ~/.bashrc");
    expect(lines.stdout).toMatch(/\nGentle Shell in ~\/\.gentle-shell is healthy \(\d+ checks: 0 broken, \d+ warnings?\)/);
    const json = await run(i, f.binary!, ["doctor", "--json"]);
    const doc = onlyDocument(json.stdout);
    expect(schemaErrors(doc)).toEqual([]);
    expect(doc).toMatchObject({ command: "doctor", ok: true, exitCode: 0, doctor: { installed: true, healthy: true, prefix: "~/.gentle-shell" } });
    expect(json.stdout).not.toContain(i.home);
    expect(await treeSnapshot(i.root)).toEqual(before);
  });

  it("names each break once, --fix repairs exactly what is ours, status is healthy, and a second --fix changes nothing", async () => {
    const i = await installed(f);
    const healthy = await treeSnapshot(i.root);
    const npmBin = await npmGlobal(i.root);
    const bin = join(i.prefix, "bin");
    await fs.symlink(bin, join(i.root, "bin-again"));
    const PATH = `${bin}:${join(i.root, "bin-again")}:${npmBin}:${process.env.PATH}`;
    await breakInstall(i);
    const prefixAndHome = async () => treeSnapshot(i.root, { skip: [join(i.root, "npm-global"), join(i.root, "bin-again")] });
    const broken = await prefixAndHome();

    // doctor alone names each break and changes nothing.
    const told = await run(i, f.binary!, ["doctor"], { PATH });
    expect(told.code, told.stdout + told.stderr).toBe(1);
    for (const line of [
      "  broken ~/.gentle-shell/bin/gentle-shell was edited: its bytes differ from what this version writes",
      "  broken our PATH line is missing from ~/.bashrc",
      `  broken versions/${NEXT} is an interrupted install (left by process ${GONE}, which is gone)`,
      `  broken ~/.gentle-shell/runtime/.staging-node-${GONE}-0a1b2c3d was left by an interrupted run (process ${GONE} is gone)`,
      `  broken the installers' lock was left by process ${GONE}, which is gone`,
      "  warn   setup's record config/setup.json is missing, but what setup makes is in place (Engram is published)",
      "         fix: gentle-shell-setup doctor --fix writes the record back",
      `  ok     gentle-shell on PATH: ~/.gentle-shell/bin/gentle-shell (ours), reached through 2 PATH entries (~/.gentle-shell/bin/gentle-shell, ${join(i.root, "bin-again", "gentle-shell")})`,
      "  warn   gentle-shell on PATH: " + `${join(i.root, "npm-global", "lib", "node_modules", "gentle-pi", "bin", "gentle-shell.mjs")} (a global npm install)`,
      "         run: gentle-shell-setup migrate moves it into this install and removes the global package",
    ])
      expect(told.stdout).toContain(line);
    // Each command on PATH is named once, by its real path.
    expect(told.stdout.match(/gentle-shell on PATH: /g)).toHaveLength(2);
    expect(await prefixAndHome()).toEqual(broken);

    const fixed = await run(i, f.binary!, ["doctor", "--fix"], { PATH });
    expect(fixed.code, fixed.stdout + fixed.stderr).toBe(0);
    expect(fixed.stdout.split("\n").filter((l) => l.startsWith("repaired: "))).toEqual([
      "repaired: wrote ~/.gentle-shell/bin/gentle-shell again",
      "repaired: wrote setup's record config/setup.json back",
      `repaired: removed ~/.gentle-shell/versions/${NEXT}, left by an interrupted run`,
      `repaired: removed ~/.gentle-shell/runtime/.staging-node-${GONE}-0a1b2c3d, left by an interrupted run`,
      "repaired: took over the installers' lock its gone process left",
      "repaired: put our PATH line back in ~/.bashrc",
    ]);
    const status = await run(i, i.gs, ["status", "--no-memory"]);
    expect(status.code, status.stdout + status.stderr).toBe(0);
    expect(status.stdout).toMatch(/^Gentle Shell in ~\/\.gentle-shell: healthy\n/);
    // Exactly the repair: the healthy tree again, the setup marker written back as doctor's record.
    const expected = await withSetupRecord(i, healthy, await prefixAndHome());
    expect(await prefixAndHome()).toEqual(expected);

    const again = await run(i, f.binary!, ["doctor", "--fix"], { PATH });
    expect(again.code).toBe(0);
    expect(again.stdout).not.toContain("repaired: ");
    expect(await prefixAndHome()).toEqual(expected);
  });

  it("the launcher gone: gentle-shell-setup doctor names it, and --fix writes it again", async () => {
    const i = await installed(f);
    const launcher = await fs.readFile(i.gs);
    await fs.rm(i.gs);
    const told = await run(i, f.binary!, ["doctor"]);
    expect(told.code).toBe(1);
    expect(told.stdout).toContain("  broken ~/.gentle-shell/bin/gentle-shell is missing\n         fix: gentle-shell-setup doctor --fix writes it again");
    const fixed = await run(i, f.binary!, ["doctor", "--fix"]);
    expect(fixed.code, fixed.stdout + fixed.stderr).toBe(0);
    expect(fixed.stdout).toContain("repaired: wrote ~/.gentle-shell/bin/gentle-shell again");
    expect(await fs.readFile(i.gs)).toEqual(launcher);
    const version = await run(i, i.gs, ["--version"]);
    expect(version.stdout.split("\n").slice(0, 2)).toEqual([`gentle-shell ${latest.shell}`, `pi ${latest.pi}`]);
  });

  it("a foreign file where the launcher should be is named, not replaced, with the command to move it", async () => {
    const i = await installed(f);
    await fs.writeFile(i.gs, "#!/bin/sh\necho my own gentle-shell\n", { mode: 0o755 });
    const r = await run(i, f.binary!, ["doctor", "--fix"]);
    expect(r.code).toBe(1);
    expect(r.stdout).toContain("  broken ~/.gentle-shell/bin/gentle-shell is not Gentle Shell's launcher");
    expect(r.stdout).toContain(
      "run: move it away (mv ~/.gentle-shell/bin/gentle-shell ~/.gentle-shell/bin/gentle-shell.old), then run gentle-shell-setup doctor --fix",
    );
    expect(r.stdout).not.toContain("repaired: ");
    expect(await fs.readFile(i.gs, "utf8")).toBe("#!/bin/sh\necho my own gentle-shell\n");
  });
});

describe.concurrent("doctor --fix killed at each repair", () => {
  const pnpm = `pnpm ${f.pins.pnpm.version}`;
  // Each repair's start and end (src/commands/doctor/fix.ts marks them), and inside the runtime repair, the one that
  // moves pnpm's folder aside and downloads it again: moved aside, downloaded, published.
  const points = [
    "fix:launcher:start",
    "fix:launcher:end",
    "fix:profile-line:end",
    "fix:remove:start",
    "fix:remove:end#2",
    "fix:lock:end",
    "fix:setup-marker:start",
    "fix:runtime:pnpm:start",
    "pnpm:aside",
    `${pnpm}:downloaded`,
    `${pnpm}:published`,
    "fix:runtime:pnpm:end",
  ];
  for (const point of points) {
    it(`killed at ${point}: the rerun converges on the repaired tree`, async () => {
      const i = await installed(f);
      const healthy = await treeSnapshot(i.root);
      await breakInstall(i);
      const pnpmDir = (await fs.readdir(join(i.prefix, "runtime"))).find((n) => n.startsWith("pnpm-"))!;
      await fs.rm(join(i.prefix, "runtime", pnpmDir, "package", "bin", "pnpm.mjs"));
      const env = { ...i.env, ENGRAM_STARTUP_POLICY: "disabled" };
      const killed = await killGroupAt(f.binary!, ["doctor", "--fix"], { env, cwd: i.home }, { hold: point });
      expect(killed.landed, `doctor --fix was not killed at ${point}: ${killed.why}`).toBe(true);
      const last = await run(i, f.binary!, ["doctor", "--fix"]);
      expect(last.code, last.stdout + last.stderr).toBe(0);
      const now = await treeSnapshot(i.root);
      expect(now).toEqual(await withSetupRecord(i, healthy, now));
      const again = await run(i, f.binary!, ["doctor", "--fix"]);
      expect(again.stdout).not.toContain("repaired: ");
    });
  }
});

describe("doctor --fix and the runtimes", () => {
  it("a runtime file deleted (pnpm's entry): named, then downloaded again from the install's mirror, checked against its pin", async () => {
    const i = await installed(f);
    const healthy = await treeSnapshot(i.root);
    const pnpmDir = (await fs.readdir(join(i.prefix, "runtime"))).find((n) => n.startsWith("pnpm-"))!;
    await fs.rm(join(i.prefix, "runtime", pnpmDir, "package", "bin", "pnpm.mjs"));
    const told = await run(i, i.gs, ["doctor"]);
    expect(told.code).toBe(1);
    expect(told.stdout).toContain(`is incomplete: ~/.gentle-shell/runtime/${pnpmDir}/package/bin/pnpm.mjs is gone (runtime/${pnpmDir})`);
    const fixed = await run(i, i.gs, ["doctor", "--fix"]);
    expect(fixed.code, fixed.stdout + fixed.stderr).toBe(0);
    expect(fixed.stdout).toContain(`repaired: downloaded pnpm again into ~/.gentle-shell/runtime/${pnpmDir}, checked against its pin`);
    expect(await treeSnapshot(i.root)).toEqual(healthy);
    expect((await run(i, i.gs, ["status", "--no-memory"])).code).toBe(0);
  });

  it("offline with a bundle: node's executable deleted, --fix --source <bundle> repairs it with no network at all", async () => {
    const b = offlineBundle();
    try {
      await b.make();
      const i = await installed(f);
      const healthy = await treeSnapshot(i.root);
      const nodeDir = (await fs.readdir(join(i.prefix, "runtime"))).find((n) => n.startsWith("node-"))!;
      await fs.rm(join(i.prefix, "runtime", nodeDir, "bin", "node"));
      const told = await run(i, f.binary!, ["doctor"]);
      expect(told.code).toBe(1);
      expect(told.stdout).toContain(`  broken node ${nodeDir.slice(5)} is incomplete: ~/.gentle-shell/runtime/${nodeDir}/bin/node is gone`);
      // A network namespace with nothing in it but a loopback: the mirror the install remembers is out of reach.
      const fixed = await runCommand("unshare", ["--net", "sh", "-c", 'ip link set lo up && exec "$0" doctor --fix --source "$1"', f.binary!, b.bundle], {
        env: { ...i.env, ENGRAM_STARTUP_POLICY: "disabled" },
        cwd: i.home,
      });
      expect(fixed.code, fixed.stdout + fixed.stderr).toBe(0);
      expect(fixed.stdout).toContain(`repaired: downloaded node again into ~/.gentle-shell/runtime/${nodeDir}, checked against its pin`);
      expect(await treeSnapshot(i.root)).toEqual(healthy);
    } finally {
      await b.cleanUp();
    }
  });
});

describe("gentle-shell -- doctor", () => {
  it("is still Pi's: the word reaches Pi as the first message, and no doctor runs", async () => {
    const i = await installed(f);
    const agent = join(i.prefix, "agent");
    const model = await stubModelClient(f.modelUrl).scope();
    await writeStubModelConfig(agent, model.baseUrl);
    const t = await Terminal.open({ command: [i.gs, "--", "doctor"], cwd: i.home, env: piEnv(i.env) });
    try {
      const end = Date.now() + 60_000;
      let asked: Awaited<ReturnType<typeof model.requests>> = [];
      while (Date.now() < end && !asked.length) {
        asked = await model.requests();
        if (!asked.length) await new Promise((r) => setTimeout(r, 250));
      }
      expect(asked.length, await t.screen()).toBeGreaterThan(0);
      expect(requestTurns(asked[0]!.body)).toEqual([{ role: "user", text: "doctor" }]);
      expect(await t.screen()).not.toContain("checks:");
    } finally {
      await t.close();
    }
  });
});
