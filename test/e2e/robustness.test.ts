/**
 * An install survives being killed at any moment and never touches what is
 * not ours (issue 4): kill -9 of the installer's process group at each step
 * boundary and in the middle of pnpm, then a rerun converges; two installers
 * at once; foreign files where ours would go; hostile parent folders.
 */
import { describe, expect, it } from "vitest";
import { registryLine, writeNpmrc } from "../support/npmrc";
import { prepareInstall, runInstall } from "../support/installed";
import { existsSync, promises as fs, readdirSync } from "node:fs";
import { join } from "pathe";
import { fixtures } from "../support/context";
import { publishSignedRelease } from "../support/release-publish";
import { ENGINE_ASSET } from "../../src/core/release-manifest";
import { runCommand } from "../support/proc";
import { type KillPoint, type KillResult, killGroupAt } from "../support/kill-at";
import { scratchDir } from "../support/scratch";
import { scratchHome } from "../support/home";
import { expectedVersion, firstLines, gs } from "../support/launch";

const f = fixtures();
const latest = f.releases[f.releases.length - 1]!;

/** An empty HOME of its own (each install writes its .npmrc, naming the fixture registry). */
const newHome = (parent?: string): Promise<string> => scratchHome({ parent, scratch: "gss-robust-" });

async function expectWorking(home: string) {
  const r = await gs(home, ["--version"]);
  expect(firstLines(r.stdout, 2)).toEqual(expectedVersion(latest));
  expect(r.code).toBe(0);
}

/** Start an installer in its own process group and kill -9 the group at `at` (../support/kill-at.ts). */
async function killAt(home: string, at: KillPoint): Promise<KillResult<undefined>> {
  const install = await prepareInstall(f, home);
  return killGroupAt(install.command, install.args, { env: install.env, cwd: install.cwd }, at);
}

/** Node and pnpm extracted at once: two staging folders side by side. */
const bothStaging = (prefix: string) => {
  try {
    return readdirSync(join(prefix, "runtime")).filter((n) => n.startsWith(".staging-")).length >= 2;
  } catch {
    return false;
  }
};

describe.concurrent("kill -9 at each step boundary, then a rerun converges", () => {
  const [node, pnpm, engram] = [`Node ${f.pins.node.version}`, `pnpm ${f.pins.pnpm.version}`, `Engram ${f.pins.engram.version}`];
  // Held at the installer's own step marks (src/io/step-times.ts), or, where the point is inside work that is not
  // ours (two extractions at once, pnpm), seen from outside and stopped there.
  const points: Array<[string, (prefix: string) => KillPoint]> = [
    ["while a runtime downloads or stages", () => ({ hold: `${pnpm}:downloaded` })],
    ["while Node and pnpm are extracted at once", (prefix) => ({ stopWhen: () => bothStaging(prefix) })],
    ["after Node is published", () => ({ hold: `${node}:published` })],
    ["after pnpm is published", () => ({ hold: `${pnpm}:published` })],
    ["when the version folder is claimed", () => ({ hold: "version:claimed" })],
    ["in the middle of pnpm", (prefix) => ({ stopWhen: () => existsSync(join(prefix, `versions/${latest.id}/node_modules/.pnpm`)) })],
    // The final marker reads the bare id; before it, "installing <id> <pid>".
    ["after the final version marker", () => ({ hold: "version:marked" })],
    ["after current is switched", () => ({ hold: "activate:end" })],
    ["after the launcher is written", () => ({ hold: "launcher:end" })],
    // The setup step's gentle-shell setup has published the Engram core (and holds its own install lock).
    ["in the setup step, after Engram is published", () => ({ hold: `${engram}:published` })],
  ];
  for (const [when, at] of points) {
    it(when, async () => {
      const home = await newHome();
      const first = await killAt(home, at(join(home, ".gentle-shell")));
      expect(first.landed, `the install was not killed ${when}: ${first.why}`).toBe(true);
      const again = await runInstall(f, home);
      expect(again.stdout + again.stderr, again.stdout + again.stderr).not.toMatch(/✖/);
      expect(again.code).toBe(0);
      await expectWorking(home);
      // Engram's core: the setup step's gentle-shell setup publishes it.
      const runtime = await fs.readdir(join(home, ".gentle-shell", "runtime"));
      expect(runtime.sort()).toEqual(["engram-3.5.2", "fd-10.3.0", "node-24.21.0", "pnpm-11.1.1", "ripgrep-15.1.0"]);
      expect(await fs.readdir(join(home, ".gentle-shell", "versions"))).toEqual([latest.id]);
      expect(existsSync(join(home, ".gentle-shell", ".gentle-shell-setup.lock"))).toBe(false);
      const bashrc = await fs.readFile(join(home, ".bashrc"), "utf8");
      expect(bashrc.match(/# gentle-shell bundled install/g)).toHaveLength(1);
    });
  }
});

describe("two installers at once", () => {
  it("both succeed, one after the other, with one install and one PATH line", async () => {
    const home = await newHome();
    // One .npmrc, written before either starts; the same command twice.
    const install = await prepareInstall(f, home);
    const run = () => runCommand(install.command, install.args, { env: install.env, cwd: install.cwd });
    const [a, b] = await Promise.all([run(), run()]);
    expect(a.code, a.stdout + a.stderr).toBe(0);
    expect(b.code, b.stdout + b.stderr).toBe(0);
    await expectWorking(home);
    const bashrc = await fs.readFile(join(home, ".bashrc"), "utf8");
    expect(bashrc.match(/# gentle-shell bundled install/g)).toHaveLength(1);
  });
});

describe("never replaces what is not ours", () => {
  it("leaves a foreign file at bin/gentle-shell byte for byte and says so", async () => {
    const home = await newHome();
    const launcher = join(home, ".gentle-shell", "bin", "gentle-shell");
    await fs.mkdir(join(home, ".gentle-shell", "bin"), { recursive: true });
    await fs.writeFile(launcher, "#!/bin/sh\necho my own gentle-shell\n", { mode: 0o755 });
    const r = await runInstall(f, home);
    expect(r.code).toBe(1);
    expect(r.stdout).toContain("✖ launcher failed: ~/.gentle-shell/bin/gentle-shell exists and was not written by gentle-shell-setup");
    expect(await fs.readFile(launcher, "utf8")).toBe("#!/bin/sh\necho my own gentle-shell\n");
    expect(existsSync(join(home, ".bashrc"))).toBe(false);
  });

  it("leaves a foreign current alone", async () => {
    const home = await newHome();
    await fs.mkdir(join(home, ".gentle-shell"), { recursive: true });
    await fs.symlink("/usr", join(home, ".gentle-shell", "current"));
    const r = await runInstall(f, home);
    expect(r.code).toBe(1);
    expect(r.stdout).toMatch(/✖ activate failed: .*current points at \/usr, not at a version of this install; current was not switched/);
    expect(await fs.readlink(join(home, ".gentle-shell", "current"))).toBe("/usr");
  });

  it("leaves an unmarked versions/<id> alone", async () => {
    const home = await newHome();
    const dir = join(home, ".gentle-shell", "versions", latest.id);
    await fs.mkdir(dir, { recursive: true });
    await fs.writeFile(join(dir, "notes.txt"), "mine\n");
    const r = await runInstall(f, home);
    expect(r.code).toBe(1);
    expect(r.stdout).toContain(`✖ version failed: versions/${latest.id} exists but it has no .gentle-shell-version marker`);
    expect(await fs.readdir(dir)).toEqual(["notes.txt"]);
  });
});

describe("parent folders of HOME change nothing", () => {
  it("ignores a packageManager field and a pnpm-workspace.yaml above HOME", async () => {
    const parent = scratchDir("gss-parent-");
    await fs.writeFile(join(parent, "package.json"), JSON.stringify({ name: "outer", packageManager: "pnpm@9.0.0", type: "module" }));
    await fs.writeFile(join(parent, "pnpm-workspace.yaml"), "packages:\n  - '**'\nminimumReleaseAge: 99999999\nminimumReleaseAgeStrict: true\n");
    await writeNpmrc(parent, [registryLine("http://127.0.0.1:9/"), "ignore-scripts=true"]);
    const home = await newHome(parent);
    const r = await runInstall(f, home);
    expect(r.stdout + r.stderr).not.toMatch(/✖/);
    expect(r.code).toBe(0);
    await expectWorking(home);
    // Our pnpm ran (no other pnpm was fetched into the prefix) and gentle-pi's build ran.
    expect(existsSync(join(home, ".gentle-shell", "versions", latest.id, "node_modules", "gentle-pi", "bin", "gentle-ai"))).toBe(true);
    expect((await fs.readdir(join(home, ".gentle-shell", "runtime"))).sort()).toEqual([
      "engram-3.5.2",
      "fd-10.3.0",
      "node-24.21.0",
      "pnpm-11.1.1",
      "ripgrep-15.1.0",
    ]);
  });
});

describe("a failed version install", () => {
  it("removes the folder it claimed, names the step, and never prints a token", async () => {
    // A release whose lockfile names a gentle-pi the registry does not have: pnpm fails.
    const { distributionAsset } = await import("../../src/core/release-project");
    const from = join(f.mirrorRoot, "releases", `v${latest.shell}`);
    const lock = (await fs.readFile(join(from, "gentle-shell-distribution-lock.yaml"), "utf8"))
      .split(`gentle-pi@${latest.shell}`)
      .join("gentle-pi@4.9.0")
      .replace(`specifier: ${latest.shell}\n`, "specifier: 4.9.0\n")
      .replace(`version: ${latest.shell}(`, "version: 4.9.0(");
    const to = join(f.mirrorRoot, "releases", "v4.9.0");
    await fs.mkdir(to, { recursive: true });
    await fs.writeFile(join(to, "gentle-shell-distribution-lock.yaml"), lock);
    await fs.writeFile(
      join(to, "gentle-shell-distribution.json"),
      distributionAsset({ shell: "4.9.0", pi: latest.pi }, lock, { node: "24.21.0", pnpm: "11.1.1" }),
    );
    // Signed as a real release would be: the signature is good, pnpm is what fails.
    await publishSignedRelease(to, { shell: "4.9.0", pi: latest.pi, engine: await fs.readFile(join(from, ENGINE_ASSET)) });

    const home = await newHome();
    const secret = "npm_SECRET0123456789abcdef";
    const r = await runInstall(f, home, ["--release", "4.9.0"], { npmrc: [registryLine(f.registryUrl), `//127.0.0.1:9/:_authToken=${secret}`] });
    expect(r.code).toBe(1);
    expect(r.stdout).toMatch(/✖ version failed: pnpm install --frozen-lockfile failed for 4\.9\.0-1\.6\.0/);
    expect(r.stdout + r.stderr).not.toContain(secret);
    expect(await fs.readdir(join(home, ".gentle-shell", "versions"))).toEqual([]);
    expect(existsSync(join(home, ".gentle-shell", "current"))).toBe(false);
    // The runtimes it verified stay for the next run.
    expect((await fs.readdir(join(home, ".gentle-shell", "runtime"))).sort()).toEqual(["node-24.21.0", "pnpm-11.1.1"]);
  });
});
