// The PATH entry's side effects on a real file system in a temp home, and the
// Windows user Path through a fake adapter (spec: "PATH").
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import * as fs from "node:fs";
import { execFileSync } from "node:child_process";
import { tmpdir } from "node:os";
import { join } from "pathe";
import { prefixLayout, type Layout, type Platform } from "../../src/core/layout";
import { buildPins } from "../../src/pins";
import { fishLine, pathEntryPlan, posixLine, shadowingCommand, type PathEntryPlan, type PathReceipt, type UserPathValue } from "../../src/core/path-entry";
import {
  applyPathEntry,
  bundledPathStep,
  collectPathFacts,
  isCommandFile,
  probeFile,
  readPathReceipt,
  removePathEntry,
  windowsRegistry,
  writePathReceipt,
  type RegistryAdapter,
} from "../../src/io/path-apply";
import type { PowerShellRunner } from "../../src/io/powershell";

let root: string;
let home: string;
let layout: Layout;

function makeLayout(h: string, platform: Platform = "linux", windowsPrefix?: string): Layout {
  return prefixLayout({ home: h, platform, pins: buildPins(), windowsPrefix });
}

beforeEach(() => {
  root = fs.realpathSync(fs.mkdtempSync(join(tmpdir(), "gs-path-")));
  home = join(root, "home");
  fs.mkdirSync(home);
  layout = makeLayout(home);
  fs.mkdirSync(layout.bin, { recursive: true });
  fs.writeFileSync(layout.launcher, "#!/bin/sh\necho gentle-shell 4.1.0\n", { mode: 0o755 });
});
afterEach(() => {
  fs.rmSync(root, { recursive: true, force: true });
});

const env = (shell: string, more: Record<string, string> = {}) => ({ HOME: home, PATH: "/usr/bin:/bin", SHELL: shell, ...more });
const read = (p: string) => fs.readFileSync(p);
const LINE = () => posixLine(layout.bin);

async function plan(e: Record<string, string>, platform: Platform = "linux"): Promise<PathEntryPlan> {
  return pathEntryPlan(await collectPathFacts(layout, { env: e, platform }));
}

describe("probeFile", () => {
  it("a regular file: its content and whether this user may write it", () => {
    fs.writeFileSync(join(home, ".bashrc"), "x\n");
    expect(probeFile(join(home, ".bashrc"), home)).toEqual({ path: join(home, ".bashrc"), node: "file", linkedFolder: null, writable: true, content: "x\n" });
  });
  it("a 0444 file is not writable, for root too", () => {
    fs.writeFileSync(join(home, ".zshrc"), "x\n", { mode: 0o444 });
    expect(probeFile(join(home, ".zshrc"), home).writable).toBe(false);
  });
  it("a symlink: its target, and its content read through it", () => {
    fs.writeFileSync(join(root, "real"), "y\n");
    fs.symlinkSync(join(root, "real"), join(home, ".bashrc"));
    expect(probeFile(join(home, ".bashrc"), home)).toMatchObject({ node: "link", linkTarget: join(root, "real"), content: "y\n" });
  });
  it("a file below a linked folder", () => {
    fs.mkdirSync(join(root, "dots"));
    fs.writeFileSync(join(root, "dots", ".zshrc"), "z\n");
    fs.symlinkSync(join(root, "dots"), join(home, "zdot"));
    expect(probeFile(join(home, "zdot", ".zshrc"), home)).toMatchObject({ node: "file", linkedFolder: join(home, "zdot"), writable: false, content: "z\n" });
  });
  it("an absent file under missing folders: writable when the deepest existing folder is", () => {
    expect(probeFile(join(home, ".config/fish/conf.d/gentle-shell.fish"), home)).toMatchObject({ node: "absent", linkedFolder: null, writable: true });
    fs.chmodSync(home, 0o555);
    try {
      expect(probeFile(join(home, ".config/fish/conf.d/gentle-shell.fish"), home).writable).toBe(false);
    } finally {
      fs.chmodSync(home, 0o755);
    }
  });
  it("a link to a FIFO or to /dev/zero is not read (no hang, no flood)", () => {
    execFileSync("mkfifo", [join(root, "fifo")]);
    fs.symlinkSync(join(root, "fifo"), join(home, ".bashrc"));
    expect(probeFile(join(home, ".bashrc"), home)).toMatchObject({ node: "link", content: null });
    fs.symlinkSync("/dev/zero", join(home, ".zshrc"));
    expect(probeFile(join(home, ".zshrc"), home)).toMatchObject({ node: "link", content: null });
  });
  it("a folder in place of the file", () => {
    fs.mkdirSync(join(home, ".profile"));
    expect(probeFile(join(home, ".profile"), home).node).toBe("other");
  });
});

describe("applyPathEntry and removePathEntry: byte for byte", () => {
  it("a file without a trailing newline gets one before our line, recorded as the separator, and gets its bytes back", async () => {
    const rc = join(home, ".bashrc");
    fs.writeFileSync(rc, "alias ll='ls -l'");
    const before = read(rc);
    const p = await plan(env("/bin/bash"));
    const receipt = await applyPathEntry(p, { home });
    expect(receipt).toEqual({ schema: 1, kind: "profile", applied: true, path: rc, line: LINE(), create: false, separator: "\n" });
    expect(fs.readFileSync(rc, "utf8")).toBe(`alias ll='ls -l'\n${LINE()}\n`);
    expect(await removePathEntry(receipt)).toEqual({ status: "removed" });
    expect(read(rc).equals(before)).toBe(true);
  });

  it("a file ending in a newline: no separator, and the same inode and mode after removal", async () => {
    const rc = join(home, ".zshrc");
    fs.writeFileSync(rc, "setopt x\n", { mode: 0o640 });
    const ino = fs.statSync(rc).ino;
    const receipt = await applyPathEntry(await plan(env("/usr/bin/zsh")), { home });
    expect(receipt).toMatchObject({ separator: "", create: false });
    await removePathEntry(receipt);
    expect(fs.readFileSync(rc, "utf8")).toBe("setopt x\n");
    expect(fs.statSync(rc).ino).toBe(ino);
    expect(fs.statSync(rc).mode & 0o777).toBe(0o640);
  });

  it("an empty file stays an empty file", async () => {
    const rc = join(home, ".profile");
    fs.writeFileSync(rc, "");
    const receipt = await applyPathEntry(await plan(env("/bin/sh")), { home });
    expect(receipt).toMatchObject({ separator: "", create: false });
    expect(await removePathEntry(receipt)).toEqual({ status: "removed" });
    expect(fs.existsSync(rc)).toBe(true);
    expect(fs.readFileSync(rc, "utf8")).toBe("");
  });

  it("a file we created (with its folders) is deleted when nothing else is left", async () => {
    const path = join(home, ".config/fish/conf.d/gentle-shell.fish");
    const receipt = await applyPathEntry(await plan(env("/usr/bin/fish")), { home });
    expect(receipt).toEqual({ schema: 1, kind: "profile", applied: true, path, line: fishLine(layout.bin), create: true, separator: "" });
    expect(fs.readFileSync(path, "utf8")).toBe(fishLine(layout.bin) + "\n");
    expect(await removePathEntry(receipt)).toEqual({ status: "removed", deleted: true });
    expect(fs.existsSync(path)).toBe(false);
  });

  it("a file we created that the user added to is kept, with only our line gone", async () => {
    const path = join(home, ".bashrc");
    const receipt = await applyPathEntry(await plan(env("/bin/bash")), { home });
    expect(receipt).toMatchObject({ create: true });
    fs.appendFileSync(path, "export EDITOR=vi\n");
    expect(await removePathEntry(receipt)).toEqual({ status: "removed" });
    expect(fs.readFileSync(path, "utf8")).toBe("export EDITOR=vi\n");
  });

  it("lines the user added after ours stay; only our line goes", async () => {
    const rc = join(home, ".bashrc");
    fs.writeFileSync(rc, "a");
    const receipt = await applyPathEntry(await plan(env("/bin/bash")), { home });
    fs.appendFileSync(rc, "b\n");
    await removePathEntry(receipt);
    expect(fs.readFileSync(rc, "utf8")).toBe("a\nb\n");
  });

  it("a line the user edited is kept and named", async () => {
    const rc = join(home, ".bashrc");
    fs.writeFileSync(rc, "a\n");
    const receipt = await applyPathEntry(await plan(env("/bin/bash")), { home });
    const edited = fs.readFileSync(rc, "utf8").replace(":$PATH", ":$PATH:/extra");
    fs.writeFileSync(rc, edited);
    const r = await removePathEntry(receipt);
    expect(r).toEqual({
      status: "kept",
      path: rc,
      line: `export PATH="${layout.bin}:$PATH:/extra" # gentle-shell bundled install`,
      reason: "the marked line was edited",
    });
    expect(fs.readFileSync(rc, "utf8")).toBe(edited);
  });

  it("a line the user already removed: nothing to do", async () => {
    const rc = join(home, ".bashrc");
    fs.writeFileSync(rc, "a\n");
    const receipt = await applyPathEntry(await plan(env("/bin/bash")), { home });
    fs.writeFileSync(rc, "a\n");
    expect(await removePathEntry(receipt)).toEqual({ status: "absent" });
    expect(fs.readFileSync(rc, "utf8")).toBe("a\n");
  });

  it("applying twice adds one line; the second receipt is applied: false and never reverted", async () => {
    const rc = join(home, ".bashrc");
    fs.writeFileSync(rc, "a\n");
    const stale = await plan(env("/bin/bash"));
    const first = await applyPathEntry(stale, { home });
    const second = await applyPathEntry(stale, { home });
    expect(second.applied).toBe(false);
    expect(await plan(env("/bin/bash"))).toMatchObject({ kind: "none" });
    expect(fs.readFileSync(rc, "utf8")).toBe(`a\n${LINE()}\n`);
    expect(await removePathEntry(second)).toEqual({ status: "not-applied" });
    expect(fs.readFileSync(rc, "utf8")).toBe(`a\n${LINE()}\n`);
    await removePathEntry(first);
    expect(fs.readFileSync(rc, "utf8")).toBe("a\n");
  });

  it("a line already there before us (plan none) is never reverted", async () => {
    const rc = join(home, ".zshrc");
    fs.writeFileSync(rc, `${LINE()}\n`);
    const receipt = await applyPathEntry(await plan(env("/bin/zsh")), { home });
    expect(receipt).toMatchObject({ kind: "profile", applied: false });
    expect(await removePathEntry(receipt)).toEqual({ status: "not-applied" });
    expect(fs.readFileSync(rc, "utf8")).toBe(`${LINE()}\n`);
  });

  it("a profile that turned into a link after planning is refused (O_NOFOLLOW), and its target untouched", async () => {
    const rc = join(home, ".bashrc");
    fs.writeFileSync(rc, "a\n");
    const p = await plan(env("/bin/bash"));
    fs.rmSync(rc);
    fs.writeFileSync(join(root, "target"), "t\n");
    fs.symlinkSync(join(root, "target"), rc);
    await expect(applyPathEntry(p, { home })).rejects.toThrow(/link/);
    expect(fs.readFileSync(join(root, "target"), "utf8")).toBe("t\n");
  });

  it("a profile that turned into a FIFO after planning is refused without blocking", async () => {
    const rc = join(home, ".bashrc");
    fs.writeFileSync(rc, "a\n");
    const p = await plan(env("/bin/bash"));
    fs.rmSync(rc);
    execFileSync("mkfifo", [rc]);
    await expect(applyPathEntry(p, { home })).rejects.toThrow(/regular file/);
  });

  it("a folder above that turned into a link after planning is refused", async () => {
    fs.mkdirSync(join(home, "z"));
    const p = await plan(env("/bin/zsh", { ZDOTDIR: join(home, "z") }));
    fs.renameSync(join(home, "z"), join(root, "z-real"));
    fs.symlinkSync(join(root, "z-real"), join(home, "z"));
    await expect(applyPathEntry(p, { home })).rejects.toThrow(/link/);
    expect(fs.readdirSync(join(root, "z-real"))).toEqual([]);
  });

  it("the ~/.local/bin link: made when ~/.local/bin is on PATH, removed only while it still points at our launcher", async () => {
    const localBin = join(home, ".local/bin");
    fs.mkdirSync(localBin, { recursive: true });
    const p = await plan(env("/bin/bash", { PATH: `${localBin}:/usr/bin` }));
    expect(p).toEqual({ kind: "link", path: join(localBin, "gentle-shell"), target: layout.launcher });
    const receipt = await applyPathEntry(p, { home });
    expect(fs.readlinkSync(join(localBin, "gentle-shell"))).toBe(layout.launcher);
    expect(await removePathEntry(receipt)).toEqual({ status: "removed" });
    expect(fs.existsSync(join(localBin, "gentle-shell"))).toBe(false);

    const again = await applyPathEntry(p, { home });
    fs.unlinkSync(join(localBin, "gentle-shell"));
    fs.symlinkSync("/somewhere/else", join(localBin, "gentle-shell"));
    expect(await removePathEntry(again)).toMatchObject({ status: "kept", path: join(localBin, "gentle-shell") });
    expect(fs.readlinkSync(join(localBin, "gentle-shell"))).toBe("/somewhere/else");
  });

  it("our link already there: applied: false, never reverted", async () => {
    const localBin = join(home, ".local/bin");
    fs.mkdirSync(localBin, { recursive: true });
    fs.symlinkSync(layout.launcher, join(localBin, "gentle-shell"));
    const p = await plan(env("/bin/bash", { PATH: localBin }));
    const receipt = await applyPathEntry(p, { home });
    expect(receipt).toMatchObject({ kind: "link", applied: false });
    expect(await removePathEntry(receipt)).toEqual({ status: "not-applied" });
    expect(fs.readlinkSync(join(localBin, "gentle-shell"))).toBe(layout.launcher);
  });

  it("~/.local/bin on PATH but not there: the profile line instead", async () => {
    expect(await plan(env("/bin/bash", { PATH: join(home, ".local/bin") }))).toMatchObject({ kind: "line" });
  });

  it("manual plans: a symlinked .bashrc, a read-only .zshrc, a .zshrc through a linked folder", async () => {
    fs.writeFileSync(join(root, "bashrc"), "b\n");
    fs.symlinkSync(join(root, "bashrc"), join(home, ".bashrc"));
    expect(await plan(env("/bin/bash"))).toMatchObject({ kind: "manual", reason: "link", line: LINE() });
    fs.writeFileSync(join(home, ".zshrc"), "z\n", { mode: 0o444 });
    expect(await plan(env("/bin/zsh"))).toMatchObject({ kind: "manual", reason: "read-only" });
    fs.mkdirSync(join(root, "zd"));
    fs.symlinkSync(join(root, "zd"), join(home, "zd"));
    expect(await plan(env("/bin/zsh", { ZDOTDIR: join(home, "zd") }))).toMatchObject({ kind: "manual", reason: "linked-folder" });
    await expect(applyPathEntry(await plan(env("/bin/bash")), { home })).rejects.toThrow(/by hand/);
    expect(fs.readFileSync(join(root, "bashrc"), "utf8")).toBe("b\n");
  });
});

describe("path-entry.json", () => {
  const receiptFor = (): Extract<PathReceipt, { kind: "profile" }> => ({
    schema: 1,
    kind: "profile",
    applied: true,
    path: join(home, ".bashrc"),
    line: LINE(),
    create: false,
    separator: "\n",
  });

  it("round trip: written 0600 (whatever the umask) with the kind's fields, read back valid", () => {
    const old = process.umask(0);
    try {
      expect(writePathReceipt(layout, receiptFor())).toBe(true);
    } finally {
      process.umask(old);
    }
    expect(fs.statSync(layout.pathReceipt).mode & 0o777).toBe(0o600);
    expect(JSON.parse(fs.readFileSync(layout.pathReceipt, "utf8"))).toEqual({
      schema: 1,
      kind: "profile",
      path: join(home, ".bashrc"),
      line: LINE(),
      create: false,
      separator: "\n",
    });
    expect(readPathReceipt(layout, { env: env("/bin/bash") })).toEqual({ status: "valid", receipt: receiptFor() });
    expect(fs.readdirSync(layout.prefix).filter((n) => n.includes("tmp"))).toEqual([]);
  });

  it("replaced with one rename: a hard link to the old file keeps the old bytes", () => {
    writePathReceipt(layout, receiptFor());
    fs.linkSync(layout.pathReceipt, join(root, "old"));
    const oldBytes = read(join(root, "old"));
    writePathReceipt(layout, { ...receiptFor(), separator: "" });
    expect(read(join(root, "old")).equals(oldBytes)).toBe(true);
    expect(JSON.parse(fs.readFileSync(layout.pathReceipt, "utf8")).separator).toBe("");
  });

  it("only when something was applied: an applied: false receipt leaves an earlier receipt as it is", () => {
    writePathReceipt(layout, receiptFor());
    const before = read(layout.pathReceipt);
    expect(writePathReceipt(layout, { ...receiptFor(), applied: false })).toBe(false);
    expect(read(layout.pathReceipt).equals(before)).toBe(true);
  });

  it("missing, a link, malformed", () => {
    expect(readPathReceipt(layout, { env: {} })).toEqual({ status: "missing" });
    fs.writeFileSync(
      join(root, "elsewhere.json"),
      JSON.stringify({ schema: 1, kind: "profile", path: join(home, ".bashrc"), line: LINE(), create: false, separator: "" }),
    );
    fs.symlinkSync(join(root, "elsewhere.json"), layout.pathReceipt);
    expect(readPathReceipt(layout, { env: {} })).toMatchObject({ status: "invalid", manual: null });
    fs.unlinkSync(layout.pathReceipt);
    fs.writeFileSync(layout.pathReceipt, "{ not json");
    expect(readPathReceipt(layout, { env: {} }).status).toBe("invalid");
  });

  it("a receipt naming another file is refused even when that file holds our exact line, and the file is named", async () => {
    const other = join(home, ".zshenv");
    fs.writeFileSync(other, `${LINE()}\n`);
    fs.writeFileSync(layout.pathReceipt, JSON.stringify({ schema: 1, kind: "profile", path: other, line: LINE(), create: false, separator: "" }));
    const r = readPathReceipt(layout, { env: {} });
    expect(r).toMatchObject({ status: "invalid" });
    expect(r.status === "invalid" && r.manual).toContain("~/.zshenv");
    expect(fs.readFileSync(other, "utf8")).toBe(`${LINE()}\n`);
  });

  it("the fish line outside the fish file is refused", () => {
    fs.writeFileSync(
      layout.pathReceipt,
      JSON.stringify({ schema: 1, kind: "profile", path: join(home, ".bashrc"), line: fishLine(layout.bin), create: false, separator: "" }),
    );
    expect(readPathReceipt(layout, { env: {} }).status).toBe("invalid");
  });
});

// A fake HKCU\Environment: the raw value and its type, and the broadcasts made.
function fakeRegistry(initial: UserPathValue | null) {
  const state = { value: initial, writes: [] as UserPathValue[], broadcasts: 0 };
  const adapter: RegistryAdapter = {
    readUserPath: async () => (state.value ? { ...state.value } : null),
    writeUserPath: async (v) => {
      state.writes.push(v);
      state.value = { ...v };
    },
    broadcastEnvironmentChange: async () => {
      state.broadcasts++;
    },
  };
  return { state, adapter };
}

describe("Windows user Path through the adapter", () => {
  const wprefix = "C:/Users/u/AppData/Local/gentle-shell";
  const wlayout = () => makeLayout("C:/Users/u", "win32", wprefix);
  const ENTRY = "C:\\Users\\u\\AppData\\Local\\gentle-shell\\bin";

  it("appends to the raw value, keeps REG_EXPAND_SZ, leaves %VAR% unexpanded, broadcasts; removal restores it", async () => {
    const raw = "%USERPROFILE%\\.cargo\\bin;%LOCALAPPDATA%\\Microsoft\\WindowsApps";
    const { state, adapter } = fakeRegistry({ value: raw, type: "REG_EXPAND_SZ" });
    const facts = await collectPathFacts(wlayout(), { env: {}, registry: adapter });
    const p = pathEntryPlan(facts);
    const receipt = await applyPathEntry(p, { home: "C:/Users/u", registry: adapter });
    expect(receipt).toEqual({ schema: 1, kind: "registry", applied: true, key: "HKCU\\Environment", name: "Path", entry: ENTRY });
    expect(state.writes).toEqual([{ value: `${raw};${ENTRY}`, type: "REG_EXPAND_SZ" }]);
    expect(state.broadcasts).toBe(1);
    expect(await removePathEntry(receipt, { registry: adapter })).toEqual({ status: "removed" });
    expect(state.value).toEqual({ value: raw, type: "REG_EXPAND_SZ" });
    expect(state.broadcasts).toBe(2);
  });

  it("a REG_SZ value stays REG_SZ; an absent value is created as REG_EXPAND_SZ", async () => {
    const sz = fakeRegistry({ value: "C:\\Tools", type: "REG_SZ" });
    await applyPathEntry(pathEntryPlan(await collectPathFacts(wlayout(), { env: {}, registry: sz.adapter })), { home: "C:/Users/u", registry: sz.adapter });
    expect(sz.state.value).toEqual({ value: `C:\\Tools;${ENTRY}`, type: "REG_SZ" });
    const none = fakeRegistry(null);
    await applyPathEntry(pathEntryPlan(await collectPathFacts(wlayout(), { env: {}, registry: none.adapter })), { home: "C:/Users/u", registry: none.adapter });
    expect(none.state.value).toEqual({ value: ENTRY, type: "REG_EXPAND_SZ" });
  });

  it("already there in another case with a trailing backslash: nothing written, applied: false never reverted", async () => {
    const raw = "c:\\users\\u\\appdata\\local\\gentle-shell\\BIN\\;C:\\x";
    const { state, adapter } = fakeRegistry({ value: raw, type: "REG_EXPAND_SZ" });
    const p = pathEntryPlan(await collectPathFacts(wlayout(), { env: {}, registry: adapter }));
    expect(p.kind).toBe("none");
    const receipt = await applyPathEntry(p, { home: "C:/Users/u", registry: adapter });
    expect(receipt.applied).toBe(false);
    expect(await removePathEntry(receipt, { registry: adapter })).toEqual({ status: "not-applied" });
    expect(state.writes).toEqual([]);
    expect(state.broadcasts).toBe(0);
  });

  it("the installer step on Windows: applied, with a one-sentence next step", async () => {
    const { state, adapter } = fakeRegistry({ value: "C:\\x", type: "REG_EXPAND_SZ" });
    const wl = wlayout();
    // The receipt goes into a real folder standing in for the prefix.
    const real = { ...wl, pathReceipt: join(root, "path-entry.json") };
    const out = await bundledPathStep(real, { env: { Path: "C:\\x" }, registry: adapter });
    expect(out.status).toBe("applied");
    expect(out.nextStep).toMatch(/^Open a new terminal to use `gentle-shell`/);
    expect(state.value?.value).toBe(`C:\\x;${ENTRY}`);
    expect(JSON.parse(fs.readFileSync(real.pathReceipt, "utf8"))).toEqual({
      schema: 1,
      kind: "registry",
      key: "HKCU\\Environment",
      name: "Path",
      entry: ENTRY,
    });
  });
});

describe("the real Windows adapter, through a fake PowerShell runner", () => {
  function runner(reply: (script: string, env: Record<string, string>) => { status: number; stdout: string; stderr?: string }) {
    const calls: { script: string; env: Record<string, string> }[] = [];
    const run: PowerShellRunner = async (script, e) => {
      calls.push({ script, env: e });
      const r = reply(script, e);
      return { status: r.status, stdout: r.stdout, stderr: r.stderr ?? "" };
    };
    return { calls, run };
  }
  const b64 = (s: string) => Buffer.from(s, "utf8").toString("base64");

  it("reads the raw value without expansion and its kind", async () => {
    const value = "%USERPROFILE%\\bin;C:\\Ünïcode";
    const { calls, run } = runner(() => ({ status: 0, stdout: `ExpandString ${b64(value)}\r\n` }));
    expect(await windowsRegistry(run).readUserPath()).toEqual({ value, type: "REG_EXPAND_SZ" });
    expect(calls[0]!.script).toContain("DoNotExpandEnvironmentNames");
  });
  it("an absent value reads as null; an empty one as empty text", async () => {
    expect(await windowsRegistry(runner(() => ({ status: 0, stdout: "absent\n" })).run).readUserPath()).toBeNull();
    expect(await windowsRegistry(runner(() => ({ status: 0, stdout: "String \n" })).run).readUserPath()).toEqual({ value: "", type: "REG_SZ" });
  });
  it("refuses a Path of another type", async () => {
    await expect(windowsRegistry(runner(() => ({ status: 0, stdout: "MultiString AAAA" })).run).readUserPath()).rejects.toThrow(/not text/);
  });
  it("writes the value through the environment, never in the script text, with its type", async () => {
    const value = "C:\\a'b\";$(calc);%PATH%";
    const { calls, run } = runner(() => ({ status: 0, stdout: "" }));
    await windowsRegistry(run).writeUserPath({ value, type: "REG_EXPAND_SZ" });
    expect(calls[0]!.env).toEqual({ GENTLE_SHELL_PATH_VALUE: b64(value), GENTLE_SHELL_PATH_TYPE: "REG_EXPAND_SZ" });
    expect(calls[0]!.script).not.toContain("calc");
    expect(calls[0]!.script).toContain("ExpandString");
  });
  it("broadcasts WM_SETTINGCHANGE for Environment", async () => {
    const { calls, run } = runner(() => ({ status: 0, stdout: "" }));
    await windowsRegistry(run).broadcastEnvironmentChange();
    expect(calls[0]!.script).toMatch(/0x1A.*'Environment'/);
  });
  it("a failing PowerShell is an error", async () => {
    await expect(
      windowsRegistry(runner(() => ({ status: 1, stdout: "", stderr: "Access denied" })).run).writeUserPath({ value: "x", type: "REG_SZ" }),
    ).rejects.toThrow(/Access denied/);
  });
});

describe("bundledPathStep", () => {
  it("applied: the line, the receipt, and one sentence to get gentle-shell in this terminal", async () => {
    fs.writeFileSync(join(home, ".bashrc"), "a\n");
    const out = await bundledPathStep(layout, { env: env("/bin/bash") });
    expect(out).toMatchObject({ status: "applied", file: join(home, ".bashrc"), line: LINE() });
    expect(out.nextStep).toBe("Run `. ~/.bashrc` or open a new terminal to use `gentle-shell`.");
    expect(readPathReceipt(layout, { env: env("/bin/bash") })).toEqual({ status: "valid", receipt: out.receipt });
  });

  it("a second run: already, one line, the first receipt kept", async () => {
    fs.writeFileSync(join(home, ".zshrc"), "a\n");
    await bundledPathStep(layout, { env: env("/bin/zsh") });
    const receipt = read(layout.pathReceipt);
    const out = await bundledPathStep(layout, { env: env("/bin/zsh") });
    expect(out.status).toBe("already");
    expect(out.nextStep).toBe("Run `. ~/.zshrc` or open a new terminal to use `gentle-shell` (~/.zshrc already adds it).");
    expect(fs.readFileSync(join(home, ".zshrc"), "utf8")).toBe(`a\n${LINE()}\n`);
    expect(read(layout.pathReceipt).equals(receipt)).toBe(true);
  });

  it("already, with our bin on this terminal's PATH: nothing to do", async () => {
    fs.writeFileSync(join(home, ".zshrc"), `${LINE()}\n`);
    const out = await bundledPathStep(layout, { env: env("/bin/zsh", { PATH: `${layout.bin}:/usr/bin` }) });
    expect(out).toMatchObject({ status: "already", nextStep: "Nothing to do: `gentle-shell` is already on this terminal's PATH." });
  });

  it("noModifyPath: nothing written, and the exact line to add", async () => {
    fs.writeFileSync(join(home, ".bashrc"), "a\n");
    const out = await bundledPathStep(layout, { env: env("/bin/bash", { PATH: `${join(home, ".local/bin")}:/bin` }), noModifyPath: true });
    expect(out).toMatchObject({ status: "skipped", file: join(home, ".bashrc"), line: LINE() });
    expect(out.nextStep).toBe(`Add this line to ~/.bashrc, then open a new terminal: ${LINE()}`);
    expect(fs.readFileSync(join(home, ".bashrc"), "utf8")).toBe("a\n");
    expect(fs.existsSync(layout.pathReceipt)).toBe(false);
  });

  it("manual: a symlinked profile is named and untouched, with the line to add", async () => {
    fs.writeFileSync(join(root, "zshrc"), "z\n");
    fs.symlinkSync(join(root, "zshrc"), join(home, ".zshrc"));
    const out = await bundledPathStep(layout, { env: env("/usr/bin/zsh") });
    expect(out).toMatchObject({ status: "manual", detail: "~/.zshrc is a symlink, so it was left untouched", line: LINE() });
    expect(out.nextStep).toBe(`Add this line to ~/.zshrc, then open a new terminal: ${LINE()}`);
    expect(fs.readFileSync(join(root, "zshrc"), "utf8")).toBe("z\n");
    expect(fs.existsSync(layout.pathReceipt)).toBe(false);
  });

  it("the link: nothing to do in this terminal", async () => {
    fs.mkdirSync(join(home, ".local/bin"), { recursive: true });
    const out = await bundledPathStep(layout, { env: env("/bin/bash", { PATH: `${join(home, ".local/bin")}:/bin` }) });
    expect(out.status).toBe("applied");
    expect(out.nextStep).toMatch(/^Nothing to do: run `gentle-shell` now/);
  });

  it("fish: source the conf.d file", async () => {
    const out = await bundledPathStep(layout, { env: env("/usr/bin/fish") });
    expect(out.nextStep).toBe("Run `source ~/.config/fish/conf.d/gentle-shell.fish` or open a new terminal to use `gentle-shell`.");
  });

  it("a receipt that cannot be written: the entry is taken back and the step fails", async () => {
    const rc = join(home, ".bashrc");
    fs.writeFileSync(rc, "keep");
    fs.mkdirSync(layout.pathReceipt);
    fs.writeFileSync(join(layout.pathReceipt, "x"), "");
    const out = await bundledPathStep(layout, { env: env("/bin/bash") });
    expect(out.status).toBe("failed");
    expect(out.detail).toMatch(/^could not write ~\/\.gentle-shell\/path-entry\.json: .*; the PATH entry was taken back$/);
    expect(out.nextStep).toBe(`Add this line to ~/.bashrc, then open a new terminal: ${LINE()}`);
    expect(fs.readFileSync(rc, "utf8")).toBe("keep");
  });

  it("an install folder that cannot be on PATH fails with the reason", async () => {
    const odd = makeLayout(join(root, "a:b"));
    fs.mkdirSync(odd.home);
    const out = await bundledPathStep(odd, { env: env("/bin/bash") });
    expect(out.status).toBe("failed");
    expect(out.detail).toContain('":"');
  });
});

describe("shadowingCommand on a real PATH", () => {
  it("an old executable gentle-shell earlier on PATH shadows the ~/.local/bin link; a non-executable one does not", async () => {
    const old = join(root, "old-global", "bin");
    fs.mkdirSync(old, { recursive: true });
    fs.writeFileSync(join(old, "gentle-shell"), "#!/bin/sh\n", { mode: 0o755 });
    const localBin = join(home, ".local/bin");
    fs.mkdirSync(localBin, { recursive: true });
    const e = env("/bin/bash", { PATH: `${old}:${localBin}:/usr/bin` });
    const p = await plan(e);
    expect(p.kind).toBe("link");
    const input = { path: e.PATH, platform: "linux" as const, home, env: e, bin: layout.bin, isCommand: (f: string) => isCommandFile(f) };
    expect(shadowingCommand(p, input)).toMatchObject({ ours: false, runs: join(old, "gentle-shell") });
    fs.chmodSync(join(old, "gentle-shell"), 0o644);
    expect(shadowingCommand(p, input)).toMatchObject({ ours: true, runs: join(localBin, "gentle-shell") });
  });
});
