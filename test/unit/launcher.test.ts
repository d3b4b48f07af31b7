import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { mkdtempSync, promises as fs } from "node:fs";
import { spawnSync } from "node:child_process";
import { tmpdir } from "node:os";
import { join } from "pathe";
import { prefixLayout, type Layout, type Platform } from "../../src/core/layout";
import { productionPins } from "../../src/pins/production";
import {
  cmdLauncher,
  ensureLauncher,
  ENGRAM_STARTUP_NOTICE,
  guardScript,
  LAUNCHER_MARKER,
  NO_ACTIVE_VERSION,
  NO_ACTIVE_VERSION_HINT,
  shQuote,
} from "../../src/install/launcher";
import { activateVersion, parseHistory, readCurrent } from "../../src/install/activate";
import { classifyVersionMarker, versionState } from "../../src/install/version-install";
import { VERSION_MARKER } from "../../src/install/version-marker";
import { has, requires } from "../support/capabilities";

let home: string;
let layout: Layout;
const odd = "we i'rd $HOME !x %PATH% ünï";

beforeEach(async () => {
  home = join(mkdtempSync(join(tmpdir(), "gss-launcher-")), odd);
  await fs.mkdir(home, { recursive: true });
  layout = prefixLayout({ home, platform: "linux", pins: productionPins });
  await fs.mkdir(layout.prefix, { recursive: true });
});
afterEach(async () => {
  await fs.rm(join(home, ".."), { recursive: true, force: true });
});

/** A stand-in engine and node: the node prints its arguments, one per line, and exits with GS_EXIT. `marker`: the version's, or none. */
async function fakeRuntime(id: string, marker: string | null = id) {
  await fs.mkdir(join(layout.nodeDir, "bin"), { recursive: true });
  await fs.writeFile(
    layout.node,
    '#!/bin/sh\nfor a in "$@"; do printf "%s\\n" "$a"; done\nprintf "NODE_OPTIONS=%s\\n" "${NODE_OPTIONS-unset}"\nexit "${GS_EXIT:-0}"\n',
    { mode: 0o755 },
  );
  await fs.mkdir(join(layout.versions, id, ".gentle-shell"), { recursive: true });
  await fs.writeFile(join(layout.versions, id, ".gentle-shell", "engine.cjs"), "");
  if (marker !== null) await fs.writeFile(join(layout.versions, id, VERSION_MARKER), `${marker}\n`);
}

describe("the POSIX launcher", () => {
  it("prints the exact message and exits 1 when no version is active", async (ctx) => {
    requires(ctx, "posix-shell");
    await ensureLauncher(layout);
    const r = spawnSync(layout.launcher, ["--version"], { encoding: "utf8" });
    expect(r.status).toBe(1);
    // The spec's sentence exactly, on a line of its own; the hint for a removal killed partway follows on the next.
    expect(r.stderr).toBe(`${NO_ACTIVE_VERSION}\n${NO_ACTIVE_VERSION_HINT}\n`);
    expect(NO_ACTIVE_VERSION).toBe("gentle-shell: no active Gentle Shell version; run the Gentle Shell installer again.");
    expect(NO_ACTIVE_VERSION_HINT).toBe("gentle-shell: if Gentle Shell was being removed, finish removing it with gentle-shell-setup uninstall.");
  });

  it("passes every argument and the exit code through, in a prefix with spaces, quotes, $, !, % and unicode", async (ctx) => {
    // The POSIX launcher is an sh script reaching the version through current, a relative link.
    requires(ctx, "posix-shell", "symlinks");
    await fakeRuntime("4.1.0-1.6.0");
    await activateVersion(layout, "4.1.0-1.6.0");
    await ensureLauncher(layout);
    const args = ["-p", "say \"hi\" $USER `x` 'q'", "", "ünï"];
    const r = spawnSync(layout.launcher, args, { encoding: "utf8", env: { PATH: "/usr/bin:/bin", GS_EXIT: "7", NODE_OPTIONS: "--require /nonexistent" } });
    expect(r.status).toBe(7);
    const lines = r.stdout.split("\n");
    // No Node option before the engine: it turns Node's proxy support on itself (src/io/env-proxy.ts), so a
    // proxy variable Node cannot use gets its sentence instead of Node's stack (--use-env-proxy here, before).
    expect(lines[0]).toBe(join(layout.prefix, "current", ".gentle-shell", "engine.cjs"));
    expect(lines[1]).toBe("--gentle-shell-engine");
    expect(lines.slice(2, 6)).toEqual(args);
    // The engine itself never sees the user's NODE_OPTIONS; it hands them back to Pi.
    expect(lines[6]).toBe("NODE_OPTIONS=unset");
  });

  it("runs the version's start file when it has one (Node's compile cache), else its engine directly", async (ctx) => {
    // The POSIX launcher is an sh script reaching the version through current, a relative link.
    requires(ctx, "posix-shell", "symlinks");
    await fakeRuntime("4.1.0-1.6.0");
    await activateVersion(layout, "4.1.0-1.6.0");
    await ensureLauncher(layout);
    const script = () => spawnSync(layout.launcher, ["--version"], { encoding: "utf8", env: { PATH: "/usr/bin:/bin" } }).stdout.split("\n")[0];
    expect(script()).toBe(join(layout.prefix, "current", ".gentle-shell", "engine.cjs"));
    await fs.writeFile(join(layout.versions, "4.1.0-1.6.0", ".gentle-shell", "start.cjs"), "");
    expect(script()).toBe(join(layout.prefix, "current", ".gentle-shell", "start.cjs"));
  });

  it("starts the engine trusting the system's store (NODE_USE_SYSTEM_CA=1 with its marker) unless the user set the variable", async (ctx) => {
    requires(ctx, "posix-shell", "symlinks");
    await fakeRuntime("4.1.0-1.6.0");
    await fs.writeFile(layout.node, '#!/bin/sh\nprintf "%s|%s\\n" "${NODE_USE_SYSTEM_CA-unset}" "${GENTLE_SHELL_SYSTEM_CA-unset}"\n', { mode: 0o755 });
    await activateVersion(layout, "4.1.0-1.6.0");
    await ensureLauncher(layout);
    const seen = (extra: NodeJS.ProcessEnv) => spawnSync(layout.launcher, ["--version"], { encoding: "utf8", env: { PATH: "/usr/bin:/bin", ...extra } }).stdout;
    // The marker says the value is the launcher's, so privateChildEnv keeps it from Pi's children.
    expect(seen({})).toBe("1|1\n");
    expect(seen({ NODE_USE_SYSTEM_CA: "0" })).toBe("0|unset\n");
    expect(seen({ NODE_USE_SYSTEM_CA: "1" })).toBe("1|unset\n");
    expect(seen({ NODE_USE_SYSTEM_CA: "" })).toBe("|unset\n");
  });

  it("for --version alone, GENTLE_SHELL_VERIFY_VERSION picks an installed version's engine (upgrade step 5); never otherwise", async (ctx) => {
    // The POSIX launcher is an sh script reaching the version through current, a relative link.
    requires(ctx, "posix-shell", "symlinks");
    await fakeRuntime("4.0.0-1.6.0");
    await fakeRuntime("4.1.0-1.6.0");
    await activateVersion(layout, "4.0.0-1.6.0");
    await ensureLauncher(layout);
    const engineOf = (args: string[], verify: string) =>
      spawnSync(layout.launcher, args, { encoding: "utf8", env: { PATH: "/usr/bin:/bin", GENTLE_SHELL_VERIFY_VERSION: verify } }).stdout.split("\n")[0];
    const current = join(layout.prefix, "current", ".gentle-shell", "engine.cjs");
    expect(engineOf(["--version"], "4.1.0-1.6.0")).toBe(join(layout.prefix, "versions", "4.1.0-1.6.0", ".gentle-shell", "engine.cjs"));
    // Any other launch, and anything that is not a plain version id, runs the current version.
    expect(engineOf(["--version", "x"], "4.1.0-1.6.0")).toBe(current);
    expect(engineOf(["-p", "hi"], "4.1.0-1.6.0")).toBe(current);
    expect(engineOf(["--version"], "../../elsewhere")).toBe(current);
    expect(engineOf(["--version"], "..")).toBe(current);
    expect(engineOf(["--version"], "")).toBe(current);
  });

  it("starts no engine from a folder without our version marker: current or GENTLE_SHELL_VERIFY_VERSION naming one is no active version", async (ctx) => {
    requires(ctx, "posix-shell", "symlinks");
    await fakeRuntime("4.0.0-1.6.0");
    await fakeRuntime("4.1.0-1.6.0", null);
    await ensureLauncher(layout);
    const launch = (args: string[], extra: Record<string, string> = {}) =>
      spawnSync(layout.launcher, args, { encoding: "utf8", env: { PATH: "/usr/bin:/bin", ...extra } });
    const refused = (r: ReturnType<typeof launch>) => {
      expect(r.status).toBe(1);
      expect(r.stdout).toBe("");
      expect(r.stderr).toBe(`${NO_ACTIVE_VERSION}\n${NO_ACTIVE_VERSION_HINT}\n`);
    };
    // current names the unmarked folder: its engine is there, but it is not started.
    await activateVersion(layout, "4.1.0-1.6.0");
    refused(launch(["--version"]));
    refused(launch(["-p", "hi"]));
    // An upgrade's check of an unmarked folder is refused the same way, and a marked one still runs.
    await activateVersion(layout, "4.0.0-1.6.0");
    refused(launch(["--version"], { GENTLE_SHELL_VERIFY_VERSION: "4.1.0-1.6.0" }));
    expect(launch(["--version"]).stdout.split("\n")[0]).toBe(join(layout.prefix, "current", ".gentle-shell", "engine.cjs"));
    // The marker is looked at, not only the folder: one that is not a file does not count.
    await fs.rm(join(layout.versions, "4.0.0-1.6.0", VERSION_MARKER));
    await fs.mkdir(join(layout.versions, "4.0.0-1.6.0", VERSION_MARKER));
    refused(launch(["--version"]));
  });

  it("carries the generated marker line and is refreshed only when ours and different", async () => {
    const first = await ensureLauncher(layout);
    expect(first.status).toBe("written");
    expect((await fs.readFile(layout.launcher, "utf8")).split("\n")).toContain(LAUNCHER_MARKER);
    expect((await ensureLauncher(layout)).status).toBe("unchanged");
    if (has("posix-modes")) expect((await fs.stat(layout.launcher)).mode & 0o777).toBe(0o755);
  });

  it("never replaces a foreign file at bin/gentle-shell", async () => {
    await fs.mkdir(layout.bin, { recursive: true });
    await fs.writeFile(layout.launcher, "#!/bin/sh\necho mine\n");
    await expect(ensureLauncher(layout)).rejects.toThrow(/was not written by gentle-shell-setup/);
    expect(await fs.readFile(layout.launcher, "utf8")).toBe("#!/bin/sh\necho mine\n");
  });

  it("never follows a link at bin/gentle-shell", async (ctx) => {
    requires(ctx, "symlinks");
    await fs.mkdir(layout.bin, { recursive: true });
    const target = join(home, "elsewhere");
    await fs.writeFile(target, `${LAUNCHER_MARKER}\n`);
    await fs.symlink(target, layout.launcher);
    await expect(ensureLauncher(layout)).rejects.toThrow(/was not written by gentle-shell-setup/);
    expect(await fs.readFile(target, "utf8")).toBe(`${LAUNCHER_MARKER}\n`);
  });
});

describe("the Engram guard", () => {
  it("ignores its arguments, prints the notice as data to stderr and exits 78", async (ctx) => {
    requires(ctx, "posix-shell");
    await ensureLauncher(layout);
    const r = spawnSync(layout.guard, ["serve", "$(touch /tmp/gss-pwned)", "--data-dir", "/x"], { encoding: "utf8" });
    expect(r.status).toBe(78);
    expect(r.stdout).toBe("");
    // The notice, word for word: memory off for this session, Shell working without it, what to do.
    expect(r.stderr.trim()).toBe(
      "gentle-shell: Engram memory is disabled for this session because Gentle Shell could not verify a safe shared Engram server. Shell keeps working without memory; run gentle-shell again after starting a compatible Engram server (3.4.0 or later).",
    );
    expect(r.stderr.trim()).toBe(ENGRAM_STARTUP_NOTICE);
    await expect(fs.stat("/tmp/gss-pwned")).rejects.toThrow();
    expect(guardScript()).not.toMatch(/engram (serve|version)/);
  });
});

describe("the Engram guard prints this launch's reason", () => {
  it("prints ENGRAM_STARTUP_NOTICE as data in sh and dash: no command substitution, no escapes, a leading - is text", async (ctx) => {
    requires(ctx, "posix-shell");
    await ensureLauncher(layout);
    const canary = join(home, "pwned");
    // Quoted, so that a guard that ran it would make the canary whatever the home holds (a space, a quote, a $).
    const notice = `-n $(touch ${shQuote(canary)}) \`touch ${shQuote(canary)}\` %s %d \\n 100%\nsecond line; $HOME`;
    for (const shell of ["sh", "dash"]) {
      const r = spawnSync(shell, [layout.guard, "serve"], { encoding: "utf8", env: { PATH: process.env.PATH, ENGRAM_STARTUP_NOTICE: notice } });
      expect(r.status).toBe(78);
      expect(r.stdout).toBe("");
      expect(r.stderr).toBe(`${notice}\n`);
    }
    // Run directly too, as a provider does.
    const direct = spawnSync(layout.guard, [], { encoding: "utf8", env: { ENGRAM_STARTUP_NOTICE: notice } });
    expect(direct.stderr).toBe(`${notice}\n`);
    await expect(fs.stat(canary)).rejects.toThrow();
  });

  it("an empty or unset notice prints the fixed one", async (ctx) => {
    requires(ctx, "posix-shell");
    await ensureLauncher(layout);
    for (const env of [{}, { ENGRAM_STARTUP_NOTICE: "" }]) {
      const r = spawnSync(layout.guard, [], { encoding: "utf8", env });
      expect(r.status).toBe(78);
      expect(r.stderr).toBe(`${ENGRAM_STARTUP_NOTICE}\n`);
    }
  });
});

describe("the Windows launcher", () => {
  const odd = "C:/Users/Martín (dev) & co/AppData/Local/a!b%c ^d/gentle-shell";

  it("uses CRLF and ASCII only, turns delayed expansion off, and takes the prefix from its own folder, never from its text", () => {
    const w = prefixLayout({ home: "C:/Users/Martín", platform: "win32", pins: productionPins, windowsPrefix: odd });
    const text = cmdLauncher(w);
    expect(text.split("\r\n").length).toBeGreaterThan(5);
    expect(text.replace(/\r\n/g, "")).not.toContain("\n");
    // cmd.exe reads a batch file in the console's code page: only ASCII survives every code page.
    expect(text).toMatch(/^[\x20-\x7e\r\n]*$/);
    expect(text).toContain("SETLOCAL DisableDelayedExpansion");
    expect(text).not.toContain("Martín");
    expect(text).not.toContain("a!b");
    expect(text).toContain('FOR %%P IN ("%~dp0..") DO SET "GS_PREFIX=%%~fP"');
    // Each message is one ECHO line of its own, in plain words cmd.exe prints as they are: no %, ^, &, |, <, > or
    // parentheses, and no word that ECHO would read as its own switch (/?) or state (ON, OFF).
    const lines = text.split("\r\n");
    for (const message of [NO_ACTIVE_VERSION, NO_ACTIVE_VERSION_HINT]) {
      expect(lines).toContain(`ECHO ${message} 1>&2`);
      expect(message).toMatch(/^gentle-shell: [A-Za-z0-9 .,;:'-]+$/);
    }
    expect(lines.indexOf(`ECHO ${NO_ACTIVE_VERSION_HINT} 1>&2`)).toBe(lines.indexOf(`ECHO ${NO_ACTIVE_VERSION} 1>&2`) + 1);
    // Only a folder carrying our version marker is started, checked before Node runs.
    const marked = lines.indexOf(`IF NOT EXIST "%GS_PREFIX%\\versions\\%GS_ID%\\${VERSION_MARKER}" GOTO none`);
    expect(marked).toBeGreaterThan(lines.findIndex((l) => l.startsWith("SET /P GS_ID=")));
    expect(marked).toBeLessThan(lines.findIndex((l) => l.startsWith('"%GS_NODE%"')));
    // The same text for every prefix: nothing of the path is in it.
    expect(cmdLauncher(prefixLayout({ home: "C:/Users/a", platform: "win32", pins: productionPins, windowsPrefix: "C:/Users/a/gentle-shell" }))).toBe(text);
  });

  it("clears GS_ID before reading current, so an inherited value never names a version", () => {
    const lines = cmdLauncher(prefixLayout({ home: "C:/Users/a", platform: "win32", pins: productionPins, windowsPrefix: odd })).split("\r\n");
    const clear = lines.indexOf('SET "GS_ID="');
    const read = lines.findIndex((l) => l.startsWith("SET /P GS_ID="));
    expect(clear).toBeGreaterThan(0);
    expect(read).toBeGreaterThan(clear);
  });

  it("runs the version's start file (Node's compile cache for the engine) when there is one, else its engine", () => {
    const w = prefixLayout({ home: "C:/Users/a", platform: "win32", pins: productionPins, windowsPrefix: "C:/Users/a/gentle-shell" });
    const lines = cmdLauncher(w).split("\r\n");
    const start = lines.indexOf('SET "GS_START=%GS_PREFIX%\\versions\\%GS_ID%\\.gentle-shell\\start.cjs"');
    expect(start).toBeGreaterThan(0);
    expect(lines[start + 1]).toBe('IF NOT EXIST "%GS_START%" SET "GS_START=%GS_PREFIX%\\versions\\%GS_ID%\\.gentle-shell\\engine.cjs"');
    expect(lines).toContain(`SET "GS_NODE=%GS_PREFIX%\\runtime\\node-${productionPins.node.version}\\node.exe"`);
  });

  it("sets NODE_USE_SYSTEM_CA=1 with its marker only when the user set no value, the marker first (it is read while the value is still unset)", () => {
    const lines = cmdLauncher(prefixLayout({ home: "C:/Users/a", platform: "win32", pins: productionPins, windowsPrefix: "C:/Users/a/gentle-shell" })).split(
      "\r\n",
    );
    const marker = lines.indexOf('IF NOT DEFINED NODE_USE_SYSTEM_CA SET "GENTLE_SHELL_SYSTEM_CA=1"');
    const value = lines.indexOf('IF NOT DEFINED NODE_USE_SYSTEM_CA SET "NODE_USE_SYSTEM_CA=1"');
    expect(marker).toBeGreaterThan(0);
    expect(value).toBe(marker + 1);
    expect(lines.filter((l) => l.includes("SYSTEM_CA"))).toHaveLength(2);
  });

  it("ends the batch on the line that runs Node, so cmd.exe reads nothing of the file after Node returns (an upgrade rewrites it)", () => {
    const lines = cmdLauncher(prefixLayout({ home: "C:/Users/a", platform: "win32", pins: productionPins, windowsPrefix: "C:/Users/a/gentle-shell" })).split(
      "\r\n",
    );
    const run = lines.filter((l) => l.includes("--gentle-shell-engine"));
    expect(run).toHaveLength(1);
    // Node gets no option: the engine turns Node's proxy support on itself.
    expect(run[0]).toBe('"%GS_NODE%" "%GS_START%" --gentle-shell-engine %* & GOTO :EOF');
  });
});

describe("current and versions.history", () => {
  // The layout this machine's installs have: current is a relative link on POSIX, a pointer file on Windows.
  const machine: Platform = process.platform === "win32" ? "win32" : "linux";
  beforeEach(() => {
    layout = prefixLayout({ home, platform: machine, pins: productionPins });
  });

  it("switches current with one rename (a relative link; a pointer file on Windows) and records the order newest first", async () => {
    await fs.mkdir(join(layout.versions, "4.0.0-1.6.0"), { recursive: true });
    await fs.mkdir(join(layout.versions, "4.1.0-1.6.0"), { recursive: true });
    expect(await readCurrent(layout)).toBeNull();
    await activateVersion(layout, "4.0.0-1.6.0");
    const r = await activateVersion(layout, "4.1.0-1.6.0");
    expect(r.previous).toBe("4.0.0-1.6.0");
    if (layout.platform === "win32") expect(await fs.readFile(layout.current, "utf8")).toBe("4.1.0-1.6.0\n");
    else expect(await fs.readlink(layout.current)).toBe("versions/4.1.0-1.6.0");
    expect((await fs.readdir(layout.prefix)).filter((n) => n.includes(".tmp-"))).toEqual([]);
    expect(parseHistory(await fs.readFile(layout.history, "utf8"))).toEqual(["4.1.0-1.6.0", "4.0.0-1.6.0"]);
    await activateVersion(layout, "4.0.0-1.6.0");
    expect(parseHistory(await fs.readFile(layout.history, "utf8"))).toEqual(["4.0.0-1.6.0", "4.1.0-1.6.0"]);
  });

  it.for([
    ["a folder", async (p: string) => fs.mkdir(p)],
    // On Windows current is a pointer file: one holding a version id's shape would be ours.
    ["a file that names no version", async (p: string) => fs.writeFile(p, "my notes\n")],
    ["a link elsewhere", async (p: string) => fs.symlink("/tmp", p)],
  ] as const)("never switches %s at current", async ([what, make], ctx) => {
    if (what === "a link elsewhere") requires(ctx, "symlinks");
    await make(layout.current);
    const before = await fs.lstat(layout.current);
    const target = before.isSymbolicLink() ? await fs.readlink(layout.current) : null;
    await expect(activateVersion(layout, "4.1.0-1.6.0")).rejects.toThrow(/current was not switched/);
    const after = await fs.lstat(layout.current);
    expect(after.ino).toBe(before.ino);
    expect([after.isDirectory(), after.isFile(), after.isSymbolicLink()]).toEqual([before.isDirectory(), before.isFile(), before.isSymbolicLink()]);
    if (after.isFile()) expect(await fs.readFile(layout.current, "utf8")).toBe("my notes\n");
    if (target !== null) expect(await fs.readlink(layout.current)).toBe(target);
    await expect(fs.stat(layout.history)).rejects.toThrow();
  });
});

describe("the id current holds", () => {
  it("is never . or .., which would name the versions folder or the prefix (a pointer file on Windows, a link on POSIX)", async (ctx) => {
    const win = prefixLayout({ home, platform: "win32", pins: productionPins, windowsPrefix: join(home, "win-prefix") });
    await fs.mkdir(win.prefix, { recursive: true });
    for (const text of [".\r\n", "..\n", ".4.1.0-1.6.0\n"]) {
      await fs.writeFile(win.current, text);
      await expect(readCurrent(win), text).rejects.toThrow(/does not hold a version id/);
    }
    await fs.writeFile(win.current, "4.1.0-1.6.0\r\n");
    expect(await readCurrent(win)).toBe("4.1.0-1.6.0");
    requires(ctx, "symlinks");
    for (const target of ["versions/.", "versions/.."]) {
      await fs.rm(layout.current, { force: true });
      await fs.symlink(target, layout.current);
      await expect(readCurrent(layout), target).rejects.toThrow(/not at a version of this install/);
    }
    await expect(activateVersion(layout, "..")).rejects.toThrow("not a version id: ..");
  });
});

describe("version markers", () => {
  const id = "4.1.0-1.6.0";
  it("only the final marker <id> makes a version valid", () => {
    expect(classifyVersionMarker(id, `${id}\n`, true)).toEqual({ kind: "valid" });
    expect(classifyVersionMarker(id, `installing ${id} 999999999\n`, true)).toEqual({ kind: "installing", pid: 999999999, alive: false });
    expect(classifyVersionMarker(id, `installing ${id} ${process.pid}\n`, true)).toMatchObject({ kind: "installing", alive: true });
    expect(classifyVersionMarker(id, `installing 4.0.0-1.6.0 1\n`, true).kind).toBe("foreign");
    expect(classifyVersionMarker(id, null, true).kind).toBe("foreign");
    expect(classifyVersionMarker(id, `${id}\n`, false).kind).toBe("foreign");
  });

  it("a claimed folder killed before its marker landed is taken back; anything else in it makes it foreign", async () => {
    const dir = join(layout.versions, id);
    await fs.mkdir(dir, { recursive: true });
    expect(await versionState(layout, id)).toEqual({ kind: "abandoned" });
    await fs.writeFile(join(dir, "..gentle-shell-version.tmp-123-0123abcd"), "installing");
    expect(await versionState(layout, id)).toEqual({ kind: "abandoned" });
    await fs.writeFile(join(dir, "notes.txt"), "mine");
    expect((await versionState(layout, id)).kind).toBe("foreign");
  });
});
