/**
 * Migration from a global install, with the real tools: a real
 * `npm install -g` (this machine's npm) and a real `pnpm add -g` (pnpm
 * 11.1.1 on our verified Node) of the fixture gentle-pi into a throwaway
 * prefix on PATH, then the fixture binary's `migrate` (the upgrade's offer,
 * one question after the install) and `install` (the web installer's plan
 * with removal). The question is answered in a real terminal (tmux).
 */
import { describe, expect, it } from "vitest";
import { registryLine } from "../support/npmrc";
import { existsSync, promises as fs } from "node:fs";
import { join } from "pathe";
import { fixtures } from "../support/context";
import { homeEnv } from "../support/fixtures";
import { runInstall } from "../support/installed";
import { mirrorClient } from "../support/mirror";
import { runCommand } from "../support/proc";
import { scratchDir } from "../support/scratch";
import { scratchHome } from "../support/home";
import { sharedTree } from "../support/shared-install";
import { Terminal } from "../support/tmux";

const f = fixtures();
const [older, latest] = [f.releases[0]!, f.releases[f.releases.length - 1]!];

interface GlobalHome {
  root: string;
  home: string;
  /** The folder the global gentle-shell is in (first on PATH). */
  globalBin: string;
  env: NodeJS.ProcessEnv;
  manager: "npm" | "pnpm";
  prefix: string;
}

/** A home whose ~/.npmrc names the fixture registry, and a file of the user's in the agent home the old Shell used. */
const newHome = (root: string): Promise<string> =>
  scratchHome({ parent: root, name: "ho me", registry: f.registryUrl, files: { ".gentle-shell/agent/user-notes.md": "mine\n" } });

function npmEnv(root: string, home: string): NodeJS.ProcessEnv {
  const npmPrefix = join(root, "npm-global");
  return homeEnv(home, { SHELL: "/bin/bash", NPM_CONFIG_PREFIX: npmPrefix, PATH: `${join(npmPrefix, "bin")}:/usr/bin:/bin` });
}

/**
 * A home with a real `npm install -g gentle-pi@<version>`: made once per run and version (the
 * install takes minutes under load), each test working on its own copy (support/shared-install.ts).
 */
async function npmGlobal(version: string): Promise<GlobalHome> {
  const { root } = await sharedTree(
    f,
    `migration-npm-global-${version}`,
    async (root) => {
      const home = await newHome(root);
      // Waited on until it exits: the file's outer limit is the only one.
      return runCommand("npm", ["install", "-g", `gentle-pi@${version}`], { env: npmEnv(root, home), cwd: home });
    },
    // The package folder (gentle-pi with Pi and every dependency) is hard-linked, not copied: npm uninstall -g removes it whole.
    { linked: ["npm-global/lib/node_modules/gentle-pi"] },
  );
  const home = join(root, "ho me");
  return { root, home, globalBin: join(root, "npm-global", "bin"), env: npmEnv(root, home), manager: "npm", prefix: join(home, ".gentle-shell") };
}

function pnpmEnv(root: string, home: string): NodeJS.ProcessEnv {
  const pnpmHome = join(root, "pnpm-home");
  return homeEnv(home, { SHELL: "/bin/bash", PNPM_HOME: pnpmHome, PATH: `${join(pnpmHome, "bin")}:${join(root, "tools")}:/usr/bin:/bin` });
}

/** A home with a real `pnpm add -g gentle-pi@<version>`, made once per run and version as npmGlobal's. */
async function pnpmGlobal(version: string): Promise<GlobalHome> {
  const { root } = await sharedTree(f, `migration-pnpm-global-${version}`, async (root) => {
    const home = await newHome(root);
    const tools = join(root, "tools");
    await fs.mkdir(tools, { recursive: true });
    // The user's pnpm: pnpm 11.1.1 on Node 24 (it needs Node 22 or later; this machine's node is older).
    await fs.writeFile(join(tools, "pnpm"), `#!/bin/sh\nexec '${f.node}' '${f.pnpmEntry}' "$@"\n`, { mode: 0o755 });
    return runCommand(join(tools, "pnpm"), ["add", "-g", `gentle-pi@${version}`], { env: pnpmEnv(root, home), cwd: home });
  });
  const home = join(root, "ho me");
  return { root, home, globalBin: join(root, "pnpm-home", "bin"), env: pnpmEnv(root, home), manager: "pnpm", prefix: join(home, ".gentle-shell") };
}

function setup(g: GlobalHome, args: string[]) {
  return runCommand(f.binary!, args, { env: g.env, cwd: g.home });
}

/** Which gentle-shell `gentle-shell --version` runs with this PATH. */
async function globalVersion(g: GlobalHome): Promise<string> {
  const r = await runCommand("sh", ["-c", "gentle-shell --version"], { env: g.env, cwd: g.home });
  return r.stdout.trim();
}

async function stillGlobal(g: GlobalHome): Promise<boolean> {
  const ls =
    g.manager === "npm"
      ? await runCommand("npm", ["ls", "-g", "--depth=0", "--json"], { env: g.env, cwd: g.home })
      : await runCommand("pnpm", ["ls", "-g", "--depth=0", "--json"], { env: g.env, cwd: g.home });
  return ls.stdout.includes('"gentle-pi"');
}

/** `migrate` in a real terminal, kept after it exits so its last lines can be read. */
async function migrateInTerminal(g: GlobalHome, answer: (t: Terminal) => Promise<void>): Promise<string> {
  const t = await Terminal.open({
    command: [f.binary!, "migrate", "--source", f.mirrorUrl],
    cwd: g.home,
    env: g.env,
    columns: 200,
    rows: 50,
    keepOnExit: true,
  });
  await t.waitFor((s) => s.includes("Remove the old global gentle-pi with"), "the removal question");
  await answer(t);
  const { screen } = await t.waitForExit();
  await t.close();
  return screen;
}

describe("gentle-shell-setup migrate: a global npm install moves to the bundled install", () => {
  it("with no terminal installs the bundled Shell without a setup step, keeps the global gentle-pi and prints the removal command", async () => {
    const g = await npmGlobal(older.shell);
    // The shared launcher config, with a main override and a setting of the user's.
    await fs.mkdir(join(g.prefix, "config"), { recursive: true });
    await fs.writeFile(join(g.prefix, "config", "config.json"), '{"theme":"rose","channel":"main"}\n', { mode: 0o640 });
    const r = await setup(g, ["migrate", "--source", f.mirrorUrl]);
    const out = r.stdout + r.stderr;
    expect(r.code, out).toBe(0);
    expect(out).toContain(`Your Gentle Shell ${older.shell} is a global gentle-pi installed with npm.`);
    expect(out).toContain("~/.gentle-shell/agent stays where it is");
    // The bundled steps in the spec's order, then no setup step.
    const steps = [...out.matchAll(/^✔ ([a-z-]+):/gm)].map((m) => m[1]);
    expect(steps).toEqual(["claim", "npm-settings", "runtime", "version", "activate", "launcher", "verify-launcher", "path"]);
    expect(existsSync(join(g.prefix, "config", "setup.json"))).toBe(false);
    // The release channel recorded, the main override gone, the rest and the file's mode kept.
    expect(JSON.parse(await fs.readFile(join(g.prefix, "config", "config.json"), "utf8"))).toEqual({ theme: "rose", channel: "release" });
    expect((await fs.stat(join(g.prefix, "config", "config.json"))).mode & 0o777).toBe(0o640);
    expect(out).toContain("No terminal to ask, so your global gentle-pi was kept; to remove it, run: npm uninstall -g gentle-pi");
    expect(await stillGlobal(g)).toBe(true);
    expect(await globalVersion(g)).toBe(`gentle-shell ${older.shell} (global fixture)`);
    // The bundled launcher has the latest release, and the user's agent home is untouched.
    const v = await runCommand(join(g.prefix, "bin", "gentle-shell"), ["--version"], { env: g.env, cwd: g.home });
    expect(v.stdout).toContain(`gentle-shell ${latest.shell}`);
    expect(await fs.readFile(join(g.prefix, "agent", "user-notes.md"), "utf8")).toBe("mine\n");
  });

  it("asks once after the install: No and end of input keep the global gentle-pi, Yes removes it with npm", async () => {
    const g = await npmGlobal(older.shell);
    const no = await migrateInTerminal(g, (t) => t.type("n"));
    expect(no).toContain("Your global gentle-pi was kept; to remove it later, run: npm uninstall -g gentle-pi");
    expect(await stillGlobal(g)).toBe(true);

    // Run again: the finished steps are reused, and end of input (Ctrl+D) answers No.
    const eof = await migrateInTerminal(g, (t) => t.keys("C-d"));
    expect(eof).toContain("current is");
    expect(eof).toContain("Your global gentle-pi was kept");
    expect(await stillGlobal(g)).toBe(true);

    const ctrlC = await migrateInTerminal(g, (t) => t.keys("C-c"));
    expect(ctrlC).toContain("Your global gentle-pi was kept");
    expect(await stillGlobal(g)).toBe(true);

    const yes = await migrateInTerminal(g, (t) => t.type("y"));
    expect(yes).toContain("✔ remove-global-shell: removed with npm uninstall -g gentle-pi");
    expect(await stillGlobal(g)).toBe(false);
    expect(existsSync(join(g.globalBin, "gentle-shell"))).toBe(false);
    expect(await fs.readFile(join(g.prefix, "agent", "user-notes.md"), "utf8")).toBe("mine\n");
  });

  it("warns when the old gentle-shell still wins on PATH, and migrate and install refuse a release older than the global one", async () => {
    const g = await npmGlobal(latest.shell);
    const older_ = await setup(g, ["migrate", "--source", f.mirrorUrl, "--release", older.shell]);
    // 4: blocked, nothing was changed.
    expect(older_.code).toBe(4);
    expect(older_.stderr + older_.stdout).toContain(
      `Nothing to migrate: Gentle Shell ${older.shell} is older than the global gentle-pi ${latest.shell}; nothing was changed`,
    );
    expect(existsSync(join(g.prefix, "bin"))).toBe(false);

    // The web installer refuses the same older release before anything is installed: it would shadow the global one.
    const bashrc = await fs.readFile(join(g.home, ".bashrc"), "utf8").catch(() => null);
    const install = await runInstall(f, g.home, ["--release", older.shell], { env: g.env });
    expect(install.code, install.stdout + install.stderr).toBe(4);
    expect(install.stderr).toContain(
      `Gentle Shell ${older.shell} is older than your global gentle-pi ${latest.shell} (npm) and would take its place on PATH, so nothing was installed; run the installer with --release ${latest.shell} (or newer), or first remove the global one with npm uninstall -g gentle-pi`,
    );
    expect(existsSync(join(g.prefix, "bin"))).toBe(false);
    expect(existsSync(join(g.prefix, "versions"))).toBe(false);
    expect(await fs.readFile(join(g.home, ".bashrc"), "utf8").catch(() => null)).toBe(bashrc);
    expect(await globalVersion(g)).toBe(`gentle-shell ${latest.shell} (global fixture)`);

    // fish reads our conf.d line before config.fish, so whatever config.fish prepends (the old bin) comes first:
    // with the global package kept, the warning names it and says what to change.
    const fish = { ...g, env: { ...g.env, SHELL: "/usr/bin/fish" } };
    const r = await setup(fish, ["migrate", "--source", f.mirrorUrl]);
    expect(r.code, r.stdout + r.stderr).toBe(0);
    expect(r.stdout).toContain("✔ path: added to ~/.config/fish/conf.d/gentle-shell.fish");
    expect(r.stdout).toContain(
      `A new terminal would still run ${join(g.globalBin, "gentle-shell")} instead of the bundled gentle-shell: fish reads conf.d before config.fish`,
    );
  });

  it("migrate reads the release before it asks npm or pnpm anything: an unpublished one stops it with neither started", async () => {
    const g = await npmGlobal(older.shell);
    // The user's npm and pnpm, each leaving a trace when started, before the real npm.
    const tools = join(g.root, "traced");
    const trace = join(g.root, "trace.log");
    await fs.mkdir(tools, { recursive: true });
    const real = (await runCommand("sh", ["-c", "command -v npm"], { env: g.env, cwd: g.home })).stdout.trim();
    await fs.writeFile(join(tools, "npm"), `#!/bin/sh\necho "npm $*" >> '${trace}'\nexec '${real}' "$@"\n`, { mode: 0o755 });
    await fs.writeFile(join(tools, "pnpm"), `#!/bin/sh\necho "pnpm $*" >> '${trace}'\nexit 1\n`, { mode: 0o755 });
    const traced = { ...g, env: { ...g.env, PATH: `${tools}:${g.env.PATH}` } };

    const unpublished = await setup(traced, ["migrate", "--source", f.mirrorUrl, "--release", "9.9.9"]);
    expect(unpublished.code, unpublished.stdout + unpublished.stderr).toBe(1);
    expect(unpublished.stderr).toMatch(/9\.9\.9.*; nothing was changed, and your global gentle-pi was not looked at\n$/);
    expect(existsSync(trace)).toBe(false);
    expect(existsSync(join(g.prefix, "bin"))).toBe(false);

    // A published release: only then is the owner asked, and the explanation names its exact Pi.
    const dry = await setup(traced, ["migrate", "--source", f.mirrorUrl, "--release", latest.shell, "--dry-run"]);
    expect(dry.code, dry.stdout + dry.stderr).toBe(4);
    expect(dry.stdout).toContain(`Gentle Shell ${latest.shell} with its exact Pi ${latest.pi}, with its own Node and pnpm`);
    expect(await fs.readFile(trace, "utf8")).toContain("npm root -g");
  });

  it("a failed step says so and leaves the global gentle-pi untouched", async () => {
    const g = await npmGlobal(older.shell);
    // A mirror that answers but serves a damaged Node archive: the runtime step fails.
    const scope = await mirrorClient(f.mirrorUrl).scope();
    await scope.setFault(f.pins.node.archives["linux-x64"]!.path, { kind: "flip", offset: 1000 });
    const r = await setup(g, ["migrate", "--source", scope.url]);
    expect(r.code).toBe(1);
    expect(r.stdout).toMatch(/The migration stopped at the runtime step \(.+\); your global gentle-pi was left untouched and still works\./);
    expect(await stillGlobal(g)).toBe(true);
    expect(existsSync(join(g.prefix, "bin", "gentle-shell"))).toBe(false);
  });
});

describe("gentle-shell-setup install on a machine with a global Gentle Shell (the web installer)", () => {
  it("a global pnpm install gets the plan with removal, without a setup step, and pnpm removes it once every step passed", async () => {
    const g = await pnpmGlobal(older.shell);
    const dry = await setup(g, ["install", "--dry-run", "--source", f.mirrorUrl]);
    expect(dry.stdout).toContain(
      `  - remove-global-shell: once every step above passed, remove your global gentle-pi ${older.shell} with pnpm (pnpm remove -g gentle-pi)`,
    );
    expect(dry.stdout).toContain("  - setup: not in this plan");

    const r = await runInstall(f, g.home, [], { env: g.env });
    const out = r.stdout + r.stderr;
    expect(r.code, out).toBe(0);
    expect(out).toContain("✔ remove-global-shell: removed with pnpm remove -g gentle-pi");
    expect(JSON.parse(await fs.readFile(join(g.prefix, "config", "config.json"), "utf8"))).toEqual({ channel: "release" });
    expect((await fs.stat(join(g.prefix, "config", "config.json"))).mode & 0o777).toBe(0o600);
    expect(out).not.toContain("✔ setup:");
    expect(await stillGlobal(g)).toBe(false);
    expect(out).not.toContain("A new terminal would still run");
    expect(await fs.readFile(join(g.prefix, "agent", "user-notes.md"), "utf8")).toBe("mine\n");
  });

  it("an npm link is never moved: the plan keeps it, and migrate refuses", async () => {
    const root = scratchDir("gss-migrate-");
    const home = await newHome(root);
    const npmPrefix = join(root, "npm-global");
    const linked = join(root, "my-gentle-pi");
    await fs.mkdir(join(linked, "shell"), { recursive: true });
    await fs.writeFile(
      join(linked, "package.json"),
      JSON.stringify({ name: "gentle-pi", version: older.shell, bin: { "gentle-shell": "./shell/gentle-shell.js" } }),
    );
    await fs.writeFile(join(linked, "shell", "gentle-shell.js"), "#!/usr/bin/env node\nconsole.log('linked gentle-shell');\n", { mode: 0o755 });
    const globalBin = join(npmPrefix, "bin");
    const env = homeEnv(home, { SHELL: "/bin/bash", NPM_CONFIG_PREFIX: npmPrefix, PATH: `${globalBin}:/usr/bin:/bin` });
    const link = await runCommand("npm", ["link"], { env, cwd: linked });
    expect(link.code, link.stderr).toBe(0);
    const g: GlobalHome = { root, home, globalBin, env, manager: "npm", prefix: join(home, ".gentle-shell") };

    const dry = await setup(g, ["install", "--dry-run", "--source", f.mirrorUrl]);
    expect(dry.stdout).not.toContain("remove-global-shell");
    expect(dry.stdout).toMatch(
      /Your other gentle-shell, .*gentle-shell, stays as it is \(the global gentle-pi is an npm link to .*my-gentle-pi, which is never moved\)\./,
    );
    const m = await setup(g, ["migrate", "--source", f.mirrorUrl]);
    expect(m.code).toBe(4);
    expect(m.stderr + m.stdout).toContain("Nothing to migrate: the global gentle-pi is an npm link to");
    expect(existsSync(join(g.prefix, "bin"))).toBe(false);
    expect(existsSync(join(linked, "package.json"))).toBe(true);
  });
});

describe("gentle-shell-setup migrate on npm's default registry (no registry in ~/.npmrc, no --release)", () => {
  /**
   * A home whose ~/.npmrc names no registry: only our npm and pnpm know it (their default, stood in for by the
   * fixture registry in their global config files in the prefix), and the user's npm and pnpm, each leaving a
   * timed trace when started.
   */
  async function defaultRegistry(g: GlobalHome, realNpm: string | null): Promise<{ g: GlobalHome; trace: string }> {
    await fs.rm(join(g.home, ".npmrc"), { force: true });
    await fs.mkdir(join(g.prefix, "npm"), { recursive: true, mode: 0o700 });
    await fs.writeFile(join(g.prefix, "npm", "npmrc"), `${registryLine(f.registryUrl)}\n`, { mode: 0o600 });
    // And pnpm's: its own default registry, from the auth.ini in its config folder (XDG_CONFIG_HOME/pnpm).
    await fs.mkdir(join(g.prefix, "pnpm", "config", "pnpm"), { recursive: true, mode: 0o700 });
    await fs.writeFile(join(g.prefix, "pnpm", "config", "pnpm", "auth.ini"), `${registryLine(f.registryUrl)}\n`, { mode: 0o600 });
    const tools = join(g.root, "traced");
    const trace = join(g.root, "trace.log");
    const empty = join(g.root, "empty-global");
    await fs.mkdir(tools, { recursive: true });
    await fs.mkdir(empty, { recursive: true });
    const log = (name: string) => `echo "$(date +%s%3N) ${name} $*" >> '${trace}'`;
    const npm = realNpm ? `exec '${realNpm}' "$@"` : `[ "$1" = root ] && echo '${empty}'`;
    await fs.writeFile(join(tools, "npm"), `#!/bin/sh\n${log("npm")}\n${npm}\n`, { mode: 0o755 });
    await fs.writeFile(join(tools, "pnpm"), `#!/bin/sh\n${log("pnpm")}\nexit 1\n`, { mode: 0o755 });
    return { g: { ...g, env: { ...g.env, PATH: `${tools}:${g.env.PATH}` } }, trace };
  }

  /** The trace's entries, each with the time its manager was started. */
  async function probes(trace: string): Promise<{ at: number; line: string }[]> {
    const text = (await fs.readFile(trace, "utf8").catch(() => "")).trim();
    return text ? text.split("\n").map((line) => ({ at: Number(line.split(" ")[0]), line: line.slice(line.indexOf(" ") + 1) })) : [];
  }

  /** When the last request for release `shell`'s files (its signed manifest, assets and engine) started. */
  async function releaseRead(scope: { requests(): Promise<{ time: string; path: string }[]> }, shell: string): Promise<number> {
    const times = (await scope.requests()).filter((r) => r.path.startsWith(`releases/v${shell}/`)).map((r) => Date.parse(r.time));
    expect(times.length).toBeGreaterThan(0);
    return Math.max(...times);
  }

  it("with no global gentle-pi asks npm and pnpm nothing before the release reads as published, and nothing at all when it does not", async () => {
    const root = scratchDir("gss-migrate-default-");
    const home = join(root, "home");
    await fs.mkdir(home, { recursive: true });
    const empty: GlobalHome = {
      root,
      home,
      globalBin: "",
      env: homeEnv(home, { SHELL: "/bin/bash", PATH: "/usr/bin:/bin" }),
      manager: "npm",
      prefix: join(home, ".gentle-shell"),
    };
    const { g, trace } = await defaultRegistry(empty, null);
    const scope = await mirrorClient(f.mirrorUrl).scope();

    // A dry run cannot read the latest release (only our npm, not installed yet, names the registry): nothing is probed.
    const dry = await setup(g, ["migrate", "--dry-run", "--source", scope.url]);
    expect(dry.code, dry.stdout + dry.stderr).toBe(4);
    expect(await probes(trace)).toEqual([]);
    expect(dry.stdout).toContain("Dry run: nothing was changed, and your global gentle-pi was not looked at");

    // The latest release without one of its distribution assets: the install stops at its version step, nothing probed.
    await scope.setFault(`releases/v${latest.shell}/gentle-shell-distribution-lock.yaml`, { kind: "status", status: 404 });
    const unpublished = await setup(g, ["migrate", "--source", scope.url]);
    expect(unpublished.code, unpublished.stdout + unpublished.stderr).toBe(1);
    expect(unpublished.stdout).toContain("The migration stopped at the version step");
    expect(await probes(trace)).toEqual([]);

    // Published: npm and pnpm are asked only once it has been read, and with no global gentle-pi nothing moves.
    await scope.clearFaults();
    const r = await setup(g, ["migrate", "--source", scope.url]);
    expect(r.code, r.stdout + r.stderr).toBe(4);
    expect(r.stderr).toContain(
      "Nothing to migrate: no global gentle-pi is installed by npm or pnpm; no Gentle Shell version was installed and your PATH was not changed",
    );
    const asked = await probes(trace);
    expect(asked.map((p) => p.line.split(" ").slice(0, 3).join(" ")).sort()).toEqual(["npm root -g", "pnpm ls -g"]);
    const read = await releaseRead(scope, latest.shell);
    for (const p of asked) expect(p.at).toBeGreaterThanOrEqual(read);
    expect(existsSync(join(g.prefix, "bin", "gentle-shell"))).toBe(false);
    expect(existsSync(join(home, ".bashrc"))).toBe(false);
  });

  it("moves a global npm install, its owner asked and the move explained only once the latest release was read", async () => {
    const real = await npmGlobal(older.shell);
    const npm = (await runCommand("sh", ["-c", "command -v npm"], { env: real.env, cwd: real.home })).stdout.trim();
    const { g, trace } = await defaultRegistry(real, npm);
    const scope = await mirrorClient(f.mirrorUrl).scope();
    const r = await setup(g, ["migrate", "--source", scope.url]);
    const out = r.stdout + r.stderr;
    expect(r.code, out).toBe(0);
    const read = await releaseRead(scope, latest.shell);
    const asked = await probes(trace);
    expect(asked.some((p) => p.line.startsWith("npm root -g"))).toBe(true);
    for (const p of asked) expect(p.at).toBeGreaterThanOrEqual(read);
    // The explanation names the release read, between the runtimes and its version.
    const explained = r.stdout.indexOf(`Your Gentle Shell ${older.shell} is a global gentle-pi installed with npm.`);
    expect(explained, out).toBeGreaterThan(r.stdout.indexOf("✔ runtime:"));
    expect(r.stdout.indexOf("✔ version:")).toBeGreaterThan(explained);
    expect(r.stdout).toContain(`Gentle Shell ${latest.shell} with its exact Pi ${latest.pi}, with its own Node and pnpm`);
    expect(out).toContain("No terminal to ask, so your global gentle-pi was kept; to remove it, run: npm uninstall -g gentle-pi");
    const v = await runCommand(join(g.prefix, "bin", "gentle-shell"), ["--version"], { env: g.env, cwd: g.home });
    expect(v.stdout).toContain(`gentle-shell ${latest.shell}`);
  });
});
