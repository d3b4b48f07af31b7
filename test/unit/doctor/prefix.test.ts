/**
 * doctor (issue 41) over a prefix built by hand, the way a real install
 * lays it out: healthy, then broken the ways users break it (the launcher
 * edited, the PATH line gone from .bashrc, an install killed mid-way, a
 * staging folder and the installers' lock left by a gone process), each
 * named; `--fix` repairs exactly those, a second `--fix` changes nothing,
 * and doctor without --fix writes nothing. A foreign file where the
 * launcher should be is named, never replaced. The real installs are
 * test/e2e/doctor.test.ts's.
 */
import { httpClient } from "../../../src/io/http-client";
import { beforeEach, describe, expect, it } from "vitest";
import { promises as fs } from "node:fs";
import { dirname, join } from "pathe";
import { privateNpmCommand, npmCliOf } from "../../../src/installed/pi-settings";
import { prefixLayout, type Layout } from "../../../src/core/layout";
import { productionPins } from "../../../src/pins/production";
import { PI_PACKAGE, SHELL_PACKAGE } from "../../../src/core/release-project";
import { guardScript, posixLauncher } from "../../../src/install/launcher";
import { RUNTIME_MARKER } from "../../../src/install/runtime/recipe";
import { VERSION_MARKER } from "../../../src/install/version-install";
import { readPathReceipt } from "../../../src/path/receipt-file";
import { posixLine } from "../../../src/path/shells";
import type { StatusProbes } from "../../../src/commands/status/gather";
import { runDoctor } from "../../../src/commands/doctor/command";
import type { DoctorContext } from "../../../src/commands/doctor/context";
import { requires } from "../../support/capabilities";
import { scratchDir } from "../../support/scratch";
import { treeWithTimes } from "../../support/tree";

const SHELL = "4.1.0";
const PI = "0.70.2";
const ID = `${SHELL}-${PI}`;
/** No process has this id (above Linux's pid_max). */
const GONE = 99_999_999;

let home: string;
let layout: Layout;
let ctx: DoctorContext;

const probes = (): StatusProbes => ({
  runLauncher: async () => ({ code: 0, stdout: `gentle-shell ${SHELL}\npi ${PI}\n`, stderr: "" }),
  readReceipt: () => readPathReceipt(layout, ctx.env),
  probeMemory: async () => ({ memory: "disabled", row: "policy-disabled" }),
});

async function version(id: string, marker = `${id}\n`) {
  const dir = join(layout.versions, id);
  await fs.mkdir(dir, { recursive: true });
  await fs.writeFile(join(dir, VERSION_MARKER), marker);
  await fs.writeFile(join(dir, "package.json"), JSON.stringify({ dependencies: { [SHELL_PACKAGE]: SHELL, [PI_PACKAGE]: PI } }));
}

async function healthyPrefix() {
  await version(ID);
  await fs.symlink(`versions/${ID}`, layout.current);
  for (const dir of [layout.nodeDir, layout.pnpmDir, layout.engramDir]) {
    await fs.mkdir(dir, { recursive: true });
    await fs.writeFile(join(dir, RUNTIME_MARKER), "ours\n");
  }
  for (const file of [layout.node, layout.pnpmEntry, layout.engram]) {
    await fs.mkdir(dirname(file), { recursive: true });
    await fs.writeFile(file, "", { mode: 0o755 });
  }
  await fs.mkdir(join(layout.nodeDir, "gentle-shell"), { recursive: true });
  await fs.writeFile(layout.npmEntry, "// npm\n");
  await fs.mkdir(dirname(npmCliOf(layout)), { recursive: true });
  await fs.writeFile(npmCliOf(layout), "// npm-cli\n");
  await fs.mkdir(layout.agent, { recursive: true });
  await fs.writeFile(join(layout.agent, "settings.json"), JSON.stringify({ npmCommand: privateNpmCommand(layout) }));
  await fs.mkdir(layout.bin, { recursive: true });
  await fs.writeFile(layout.launcher, posixLauncher(layout), { mode: 0o755 });
  await fs.writeFile(layout.guard, guardScript(), { mode: 0o755 });
  await fs.mkdir(layout.config, { recursive: true });
  await fs.writeFile(join(layout.config, "setup.json"), "{}\n");
  const line = posixLine(layout.bin);
  await fs.writeFile(join(home, ".bashrc"), `alias ll='ls -l'\n${line}\n`);
  const receipt = { schema: 1, kind: "profile", path: join(home, ".bashrc"), line, create: false, separator: "" };
  await fs.writeFile(layout.pathReceipt, JSON.stringify(receipt), { mode: 0o600 });
}

async function doctor(args: { fix?: boolean; json?: boolean } = {}) {
  const out: string[] = [];
  const err: string[] = [];
  const code = await runDoctor(ctx, { fix: false, json: false, ...args }, { out: (l) => out.push(l), err: (l) => err.push(l) });
  return { code, out, err, text: out.join("\n") };
}

beforeEach(async () => {
  home = join(scratchDir("gss-doctor-"), "home");
  await fs.mkdir(home, { recursive: true });
  layout = prefixLayout({ home, platform: "linux", pins: productionPins });
  ctx = {
    layout,
    target: "linux-x64",
    pins: productionPins,
    env: { SHELL: "/bin/bash", PATH: `${layout.bin}:/usr/bin:/bin` },
    probes: probes(),
    program: "gentle-shell",
    // Offline: the official source's registry and release home are not asked from here (test/unit/doctor/reach.test.ts asks them).
    http: httpClient({ role: "installer", target: "linux-x64", env: {}, offline: true }),
  };
});

describe("doctor over a prefix built by hand", () => {
  // The prefix is laid out as Linux's (layout platform "linux"): executable bits, current as a link, a ':'-separated PATH.
  beforeEach(async (c) => {
    requires(c, "posix-modes", "symlinks", "posix-path-scratch");
    await healthyPrefix();
  });

  it("a healthy prefix: nothing broken, exit 0, and doctor writes nothing", async () => {
    const before = await treeWithTimes(home);
    const r = await doctor();
    expect(r.code, r.text).toBe(0);
    expect(r.out.at(-1)).toMatch(/^Gentle Shell in ~\/\.gentle-shell is healthy \(\d+ checks: 0 broken, \d+ warnings?\)\.$/);
    expect(r.text).toContain("  ok     ~/.gentle-shell/bin/gentle-shell is exactly what this version writes");
    expect(r.text).toContain("  ok     our PATH line is in ~/.bashrc");
    const json = await doctor({ json: true });
    expect(JSON.parse(json.out[0]!)).toMatchObject({ command: "doctor", ok: true, doctor: { healthy: true } });
    expect(await treeWithTimes(home)).toEqual(before);
  });

  it("names each break, --fix repairs exactly those, and a second --fix changes nothing", async () => {
    await fs.appendFile(layout.launcher, "echo hello\n");
    await fs.writeFile(join(home, ".bashrc"), "alias ll='ls -l'\n");
    await version("4.2.0-0.71.0", `installing 4.2.0-0.71.0 ${GONE}\n`);
    await fs.mkdir(join(layout.runtime, `.staging-node-${GONE}-0123abcd`, "bin"), { recursive: true });
    await fs.writeFile(layout.lock, `${GONE} 0011223344556677\n`);
    const broken = await doctor();
    expect(broken.code).toBe(1);
    for (const line of [
      "  broken ~/.gentle-shell/bin/gentle-shell was edited: its bytes differ from what this version writes",
      "  broken our PATH line is missing from ~/.bashrc",
      `  broken versions/4.2.0-0.71.0 is an interrupted install (left by process ${GONE}, which is gone)`,
      `  broken ~/.gentle-shell/runtime/.staging-node-${GONE}-0123abcd was left by an interrupted run (process ${GONE} is gone)`,
      `  broken the installers' lock was left by process ${GONE}, which is gone`,
    ])
      expect(broken.text).toContain(line);
    expect(broken.out.at(-1)).toMatch(/is broken \(\d+ checks: 5 broken, .*\); gentle-shell doctor --fix repairs 5 of them\.$/);

    const fixed = await doctor({ fix: true });
    expect(fixed.code, fixed.text).toBe(0);
    expect(fixed.out.filter((l) => l.startsWith("repaired: "))).toEqual([
      "repaired: wrote ~/.gentle-shell/bin/gentle-shell again",
      "repaired: removed ~/.gentle-shell/versions/4.2.0-0.71.0, left by an interrupted run",
      `repaired: removed ~/.gentle-shell/runtime/.staging-node-${GONE}-0123abcd, left by an interrupted run`,
      "repaired: took over the installers' lock its gone process left",
      "repaired: put our PATH line back in ~/.bashrc",
    ]);
    expect(await fs.readFile(layout.launcher, "utf8")).toBe(posixLauncher(layout));
    expect(await fs.readFile(join(home, ".bashrc"), "utf8")).toBe(`alias ll='ls -l'\n${posixLine(layout.bin)}\n`);
    await expect(fs.lstat(layout.lock)).rejects.toThrow();
    expect(await fs.readdir(layout.versions)).toEqual([ID]);

    const before = await treeWithTimes(home);
    const again = await doctor({ fix: true });
    expect(again.code).toBe(0);
    expect(again.out.filter((l) => l.startsWith("repaired: "))).toEqual([]);
    expect(await treeWithTimes(home)).toEqual(before);
  });

  it("a foreign file where the launcher should be is named, not replaced, with the command to move it", async () => {
    await fs.writeFile(layout.launcher, "#!/bin/sh\necho mine\n", { mode: 0o755 });
    const r = await doctor({ fix: true });
    expect(r.code).toBe(1);
    expect(r.text).toContain("  broken ~/.gentle-shell/bin/gentle-shell is not Gentle Shell's launcher");
    expect(r.text).toContain(
      "         run: move it away (mv ~/.gentle-shell/bin/gentle-shell ~/.gentle-shell/bin/gentle-shell.old), then run gentle-shell-setup doctor --fix",
    );
    expect(await fs.readFile(layout.launcher, "utf8")).toBe("#!/bin/sh\necho mine\n");
  });

  it("a live process's leftovers are only named: its version, its staging and its lock stay", async () => {
    await version("4.2.0-0.71.0", `installing 4.2.0-0.71.0 ${process.ppid}\n`);
    await fs.mkdir(join(layout.runtime, `.staging-node-${process.ppid}-0123abcd`));
    const r = await doctor({ fix: true });
    expect(r.text).toContain(`  warn   versions/4.2.0-0.71.0 is being installed by process ${process.ppid}`);
    expect(r.text).toContain(`is in use by process ${process.ppid}`);
    expect(r.out.filter((l) => l.startsWith("repaired: "))).toEqual([]);
    expect((await fs.readdir(layout.versions)).sort()).toEqual([ID, "4.2.0-0.71.0"].sort());
  });

  it("a runtime of ours incomplete or missing is named with --fix's repair; an unmarked one is named, never replaced", async () => {
    await fs.rm(layout.pnpmEntry);
    await fs.rm(join(layout.engramDir, RUNTIME_MARKER));
    const r = await doctor();
    expect(r.code).toBe(1);
    expect(r.text).toContain(
      "  broken pnpm 11.1.1 is incomplete: ~/.gentle-shell/runtime/pnpm-11.1.1/package/bin/pnpm.mjs is gone (runtime/pnpm-11.1.1)\n         fix: gentle-shell doctor --fix downloads it again from the install's source (or --source), checked against its pin",
    );
    expect(r.text).toContain("  warn   engram 3.5.2 is not marked as ours (runtime/engram-3.5.2); it is never replaced");
    expect(r.text).toContain("run: move runtime/engram-3.5.2 out of the Gentle Shell folder, then run the Gentle Shell installer again");
    await fs.rm(layout.nodeDir, { recursive: true });
    expect((await doctor()).text).toContain("  broken node 24.21.0 is missing (runtime/node-24.21.0)");
  });

  it("Pi's npmCommand: unset before the first launch is fine; another npm is named, and --fix sets ours, only that key", async () => {
    const settings = join(layout.agent, "settings.json");
    await fs.writeFile(settings, JSON.stringify({ theme: "dark" }));
    const unset = await doctor();
    expect(unset.text).toContain("  ok     Pi's npmCommand is not set yet; the next gentle-shell sets it");
    await fs.writeFile(settings, JSON.stringify({ theme: "dark", npmCommand: ["npm"] }));
    const other = await doctor({ fix: true });
    expect(other.text).toContain("repaired: set Pi's npmCommand to our Node and npm");
    expect(JSON.parse(await fs.readFile(settings, "utf8"))).toEqual({ theme: "dark", npmCommand: privateNpmCommand(layout) });
  });

  it("no current: broken, with the installer's command and the uninstall that finishes a removal killed partway", async () => {
    await fs.rm(layout.current);
    const r = await doctor({ fix: true });
    expect(r.code).toBe(1);
    expect(r.text).toContain("  broken no active version (~/.gentle-shell/current is missing or unreadable)");
    expect(r.text).toContain(
      "         run: run the Gentle Shell installer again (gentle-shell-setup install); the finished steps are reused; if Gentle Shell was being removed, finish removing it with gentle-shell-setup uninstall",
    );
    await expect(fs.lstat(layout.current)).rejects.toThrow();
  });

  it("the install's remembered source: a folder gone is a warning, and offline it is not asked", async () => {
    await fs.writeFile(join(layout.config, "install-source"), `${join(home, "bundle-gone")}\n`);
    const r = await doctor();
    expect(r.code).toBe(0);
    expect(r.text).toContain("  warn   the install source folder ~/bundle-gone does not exist");
    ctx = { ...ctx, env: { ...ctx.env, PI_OFFLINE: "1" } };
    expect((await doctor()).text).toContain("  ok     the install source ~/bundle-gone was not asked (offline)");
    await fs.mkdir(join(home, "bundle-gone"));
    ctx = { ...ctx, env: { ...ctx.env, PI_OFFLINE: "" } };
    expect((await doctor()).text).toContain("  ok     the install source ~/bundle-gone answers");
  });

  it("nothing installed: one closing line, exit 0, nothing created", async () => {
    await fs.rm(layout.prefix, { recursive: true });
    const r = await doctor({ fix: true });
    expect(r).toMatchObject({ code: 0, out: ["Nothing to check: Gentle Shell is not installed in ~/.gentle-shell."] });
    await expect(fs.lstat(layout.prefix)).rejects.toThrow();
  });
});
