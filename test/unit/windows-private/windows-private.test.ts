/**
 * ensureWindowsPrivateFolder (spec: "Layout", Windows paragraph) through a
 * fake adapter that models folders, owners and DACLs; the real adapter's
 * process calls through a fake windowsProcessCheck; its file parts on real
 * temp folders. The real adapter on real Windows: test/windows/.
 */
import { promises as fs } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import {
  PATH_VARIABLE,
  PS_INSPECT,
  PS_SET_PROTECTED_DACL,
  SIDS_VARIABLE,
  parseInspect,
  parseWhoami,
  windowsPrivateFolderAdapter,
} from "../../../src/install/windows-private/adapter";
import {
  FULL_CONTROL,
  SID,
  WINDOWS_BUNDLE_MARKER,
  WINDOWS_BUNDLE_MARKER_TEXT,
  WindowsPrivateFolderError,
  ensureWindowsPrivateFolder,
  untrustedReason,
  type WindowsAce,
  type WindowsFolderState,
  type WindowsPrivateFolderAdapter,
} from "../../../src/install/windows-private/rule";
import type { WindowsProcessRequest } from "../../../src/io/windows-process/check";
import { windowsProcessFailure } from "../../../src/io/windows-process/failure";

const USER = "S-1-5-21-1111111111-2222222222-3333333333-1001";
const OTHER = "S-1-5-21-1111111111-2222222222-3333333333-1002";
const EVERYONE = "S-1-1-0";
const USERS = "S-1-5-32-545";
const AUTHENTICATED = "S-1-5-11";

const PROFILE = "C:\\Users\\alice";
const LOCAL = "C:\\Users\\alice\\AppData\\Local";
const FIRST = "C:\\Users\\alice\\AppData\\Local\\gentle-shell";
const FALLBACK = "C:\\Users\\alice\\.gentle-shell-bundle";
const ENV = { LOCALAPPDATA: LOCAL, USERPROFILE: PROFILE };

const READ_EXECUTE = 0x1200a9;
const MODIFY = 0x1301bf;

const full = (sid: string, extra: Partial<WindowsAce> = {}): WindowsAce => ({
  sid,
  allow: true,
  rights: FULL_CONTROL,
  inheritOnly: false,
  inherited: false,
  ...extra,
});
/** What a profile folder grants by default. */
const profileAces = (): WindowsAce[] => [full(SID.SYSTEM), full(SID.ADMINISTRATORS), full(USER)];

interface Node {
  kind: "directory" | "file" | "link" | "unreadable";
  owner?: string;
  protected?: boolean;
  aces?: WindowsAce[];
  text?: string;
}

/** An in-memory Windows: folders with owners and DACLs, a call log. */
class FakeWindows implements WindowsPrivateFolderAdapter {
  nodes = new Map<string, Node>();
  calls: string[] = [];
  /** Lets a test change what mkdir makes (a race with another account). */
  onCreate?: (path: string) => Node | undefined;
  /** Lets a test make setProtectedDacl misbehave. */
  daclWorks = true;
  failInspect?: (path: string) => boolean;

  constructor() {
    this.nodes.set("C:\\Users", { kind: "directory", owner: SID.SYSTEM, protected: true, aces: [full(SID.SYSTEM)] });
    this.nodes.set(PROFILE, { kind: "directory", owner: USER, protected: true, aces: profileAces() });
    this.nodes.set(LOCAL, { kind: "directory", owner: USER, protected: false, aces: profileAces().map((a) => ({ ...a, inherited: true })) });
  }
  async currentUserSid() {
    this.calls.push("whoami");
    return USER;
  }
  async inspect(path: string): Promise<WindowsFolderState> {
    this.calls.push(`inspect ${path}`);
    if (this.failInspect?.(path)) throw windowsProcessFailure({ status: 1, stderr: "boom" });
    const n = this.nodes.get(path);
    if (!n) return { kind: "absent" };
    if (n.kind !== "directory") return { kind: n.kind === "unreadable" ? "unreadable" : n.kind };
    return { kind: "directory", owner: n.owner!, protected: n.protected!, aces: n.aces!.map((a) => ({ ...a })) };
  }
  async createFolder(path: string) {
    this.calls.push(`mkdir ${path}`);
    if (this.nodes.has(path)) return;
    const parent = this.nodes.get(path.slice(0, path.lastIndexOf("\\")));
    if (parent?.kind !== "directory") throw Object.assign(new Error("ENOENT"), { code: "ENOENT" });
    const made = this.onCreate?.(path);
    this.nodes.set(path, made ?? { kind: "directory", owner: USER, protected: false, aces: parent.aces!.map((a) => ({ ...a, inherited: true })) });
  }
  async setProtectedDacl(path: string, sids: readonly string[]) {
    this.calls.push(`dacl ${path} ${sids.join(",")}`);
    const n = this.nodes.get(path)!;
    if (!this.daclWorks) return;
    n.protected = true;
    n.aces = sids.map((sid) => full(sid));
  }
  async readMarker(path: string) {
    this.calls.push(`read ${path}`);
    const n = this.nodes.get(path);
    if (!n) return { kind: "absent" as const };
    if (n.kind !== "file") return { kind: "other" as const };
    return { kind: "file" as const, text: n.text! };
  }
  async writeMarker(path: string, text: string) {
    this.calls.push(`write ${path}`);
    if (this.nodes.has(path)) throw Object.assign(new Error("EEXIST"), { code: "EEXIST" });
    this.nodes.set(path, { kind: "file", text });
  }
  touched(prefix: string) {
    return this.calls.filter((c) => /^(mkdir|dacl|write) /.test(c) && c.split(" ")[1].startsWith(prefix));
  }
}

describe("ensureWindowsPrivateFolder: %LOCALAPPDATA%\\gentle-shell first", () => {
  it("creates it, claims it with a protected DACL for the user, SYSTEM and Administrators, then writes the marker", async () => {
    const w = new FakeWindows();
    const result = await ensureWindowsPrivateFolder(ENV, w);
    expect(result).toEqual({ prefix: FIRST, marker: `${FIRST}\\.gentle-shell-bundle`, fallback: false, created: true });
    const folder = w.nodes.get(FIRST)!;
    expect(folder.protected).toBe(true);
    expect(folder.aces).toEqual([full(USER), full(SID.SYSTEM), full(SID.ADMINISTRATORS)]);
    expect(w.nodes.get(`${FIRST}\\${WINDOWS_BUNDLE_MARKER}`)).toEqual({ kind: "file", text: WINDOWS_BUNDLE_MARKER_TEXT });
    const order = w.calls.filter((c) => /^(mkdir|dacl|write) /.test(c)).map((c) => c.split(" ")[0]);
    expect(order).toEqual(["mkdir", "dacl", "write"]);
    expect(w.touched(PROFILE + "\\.")).toEqual([]);
  });

  it("the marker is .gentle-shell-bundle with its exact text", () => {
    expect(WINDOWS_BUNDLE_MARKER).toBe(".gentle-shell-bundle");
    expect(WINDOWS_BUNDLE_MARKER_TEXT).toBe("This folder is a Gentle Shell bundled install. Remove it with: gentle-shell self-uninstall\r\n");
  });

  it("running again changes nothing but re-applies the same DACL; the marker is never rewritten", async () => {
    const w = new FakeWindows();
    await ensureWindowsPrivateFolder(ENV, w);
    w.calls = [];
    const again = await ensureWindowsPrivateFolder(ENV, w);
    expect(again).toEqual({ prefix: FIRST, marker: `${FIRST}\\.gentle-shell-bundle`, fallback: false, created: false });
    expect(w.calls.filter((c) => c.startsWith("write") || c.startsWith("mkdir"))).toEqual([]);
    expect(w.calls).toContain(`dacl ${FIRST} ${USER},${SID.SYSTEM},${SID.ADMINISTRATORS}`);
  });

  it("an existing folder of the user with a read-only grant to Users, a deny entry and CREATOR OWNER is kept, and loses those entries", async () => {
    const w = new FakeWindows();
    w.nodes.set(FIRST, {
      kind: "directory",
      owner: USER,
      protected: false,
      aces: [...profileAces(), full(USERS, { rights: READ_EXECUTE }), full(EVERYONE, { allow: false }), full(SID.CREATOR_OWNER, { inheritOnly: true })],
    });
    const result = await ensureWindowsPrivateFolder(ENV, w);
    expect(result.prefix).toBe(FIRST);
    expect(result.created).toBe(false);
    expect(w.nodes.get(FIRST)!.aces!.map((a) => a.sid)).toEqual([USER, SID.SYSTEM, SID.ADMINISTRATORS]);
  });

  it.each([
    ["SYSTEM", SID.SYSTEM],
    ["Administrators (the default owner for an elevated administrator on Windows Server)", SID.ADMINISTRATORS],
    ["TrustedInstaller", SID.TRUSTED_INSTALLER],
  ])("an existing folder owned by %s is trusted", async (_what, owner) => {
    const w = new FakeWindows();
    w.nodes.set(FIRST, { kind: "directory", owner, protected: false, aces: profileAces() });
    expect((await ensureWindowsPrivateFolder(ENV, w)).prefix).toBe(FIRST);
  });

  it("environment names in any case; forward slashes and a trailing backslash are normalised", async () => {
    const w = new FakeWindows();
    const result = await ensureWindowsPrivateFolder({ localappdata: "C:/Users/alice/AppData/Local/", userprofile: PROFILE }, w);
    expect(result.prefix).toBe(FIRST);
  });

  it("%USERPROFILE% is not needed when the first folder is private", async () => {
    const w = new FakeWindows();
    expect((await ensureWindowsPrivateFolder({ LOCALAPPDATA: LOCAL }, w)).prefix).toBe(FIRST);
  });
});

describe("%USERPROFILE%\\.gentle-shell-bundle only when an untrusted owner or ACL rejects the first folder", () => {
  const rejections: [string, (w: FakeWindows) => void, RegExp][] = [
    ["%LOCALAPPDATA% owned by another account", (w) => (w.nodes.get(LOCAL)!.owner = OTHER), /%LOCALAPPDATA% .* is owned by another account/],
    [
      "%LOCALAPPDATA% writable by Everyone",
      (w) => w.nodes.get(LOCAL)!.aces!.push(full(EVERYONE, { rights: MODIFY })),
      /%LOCALAPPDATA% .* lets another account change it/,
    ],
    ["%LOCALAPPDATA% lets Users add folders", (w) => w.nodes.get(LOCAL)!.aces!.push(full(USERS, { rights: 0x4 })), /lets another account change it/],
    [
      "%LOCALAPPDATA% lets another user delete children",
      (w) => w.nodes.get(LOCAL)!.aces!.push(full(OTHER, { rights: 0x40 })),
      /lets another account change it/,
    ],
    ["%LOCALAPPDATA% unreadable", (w) => w.nodes.set(LOCAL, { kind: "unreadable" }), /cannot be read/],
    [
      "the folder owned by another account",
      (w) => w.nodes.set(FIRST, { kind: "directory", owner: OTHER, protected: false, aces: profileAces() }),
      /gentle-shell is owned by another account/,
    ],
    [
      "the folder writable by Authenticated Users",
      (w) => w.nodes.set(FIRST, { kind: "directory", owner: USER, protected: false, aces: [...profileAces(), full(AUTHENTICATED, { rights: MODIFY })] }),
      /gentle-shell lets another account change it/,
    ],
    [
      "the folder lets Everyone change its permissions",
      (w) => w.nodes.set(FIRST, { kind: "directory", owner: USER, protected: true, aces: [...profileAces(), full(EVERYONE, { rights: 0x40000 })] }),
      /lets another account/,
    ],
    [
      "the folder passes write to children only (inherit-only)",
      (w) =>
        w.nodes.set(FIRST, { kind: "directory", owner: USER, protected: true, aces: [...profileAces(), full(USERS, { rights: MODIFY, inheritOnly: true })] }),
      /lets another account/,
    ],
    ["the folder unreadable", (w) => w.nodes.set(FIRST, { kind: "unreadable" }), /gentle-shell has an owner or permissions that cannot be read/],
    [
      "another account created the folder first (a race with our mkdir)",
      (w) => (w.onCreate = (p) => (p === FIRST ? { kind: "directory", owner: OTHER, protected: false, aces: profileAces() } : undefined)),
      /is owned by another account/,
    ],
  ];

  it.each(rejections)("%s", async (_what, arrange, reason) => {
    const w = new FakeWindows();
    arrange(w);
    const before = w.nodes.get(FIRST) && JSON.stringify(w.nodes.get(FIRST));
    const result = await ensureWindowsPrivateFolder(ENV, w);
    expect(result.prefix).toBe(FALLBACK);
    expect(result.marker).toBe(`${FALLBACK}\\.gentle-shell-bundle`);
    expect(result.fallback).toBe(true);
    expect(result.firstRejected).toMatch(reason);
    expect(w.nodes.get(FALLBACK)!.aces).toEqual([full(USER), full(SID.SYSTEM), full(SID.ADMINISTRATORS)]);
    expect(w.nodes.get(`${FALLBACK}\\${WINDOWS_BUNDLE_MARKER}`)!.text).toBe(WINDOWS_BUNDLE_MARKER_TEXT);
    // The rejected folder is never claimed or marked.
    expect(w.calls.filter((c) => c.startsWith(`dacl ${FIRST}`) || c.startsWith(`write ${FIRST}`))).toEqual([]);
    if (before) expect(JSON.stringify(w.nodes.get(FIRST))).toBe(before);
  });

  it("an untrusted %LOCALAPPDATA% gets no folder of ours at all", async () => {
    const w = new FakeWindows();
    w.nodes.get(LOCAL)!.owner = OTHER;
    await ensureWindowsPrivateFolder(ENV, w);
    expect(w.nodes.has(FIRST)).toBe(false);
    expect(w.touched(LOCAL)).toEqual([]);
  });

  it("the fallback is held to the same rule: both rejected is an error naming both, nothing claimed", async () => {
    const w = new FakeWindows();
    w.nodes.get(LOCAL)!.owner = OTHER;
    w.nodes.set(FALLBACK, { kind: "directory", owner: USER, protected: false, aces: [...profileAces(), full(EVERYONE, { rights: MODIFY })] });
    const error = await ensureWindowsPrivateFolder(ENV, w).catch((e) => e);
    expect(error).toBeInstanceOf(WindowsPrivateFolderError);
    expect(error.message).toMatch(/%LOCALAPPDATA% .* is owned by another account, and .*\.gentle-shell-bundle lets another account change it/);
    expect(w.calls.filter((c) => /^(dacl|write) /.test(c))).toEqual([]);
  });

  it("%USERPROFILE% missing when the fallback is needed is an error", async () => {
    const w = new FakeWindows();
    w.nodes.get(LOCAL)!.owner = OTHER;
    await expect(ensureWindowsPrivateFolder({ LOCALAPPDATA: LOCAL }, w)).rejects.toThrow(/%USERPROFILE% is not set to an absolute folder/);
  });
});

describe("anything else stops with an error and never falls back", () => {
  const refusals: [string, (w: FakeWindows) => void, RegExp][] = [
    ["a link in place of the folder", (w) => w.nodes.set(FIRST, { kind: "link" }), /is a link; it must be a real folder/],
    ["a file in place of the folder", (w) => w.nodes.set(FIRST, { kind: "file" }), /is not a folder/],
    [
      "a marker with other text",
      (w) => {
        w.nodes.set(FIRST, { kind: "directory", owner: USER, protected: true, aces: profileAces() });
        w.nodes.set(`${FIRST}\\${WINDOWS_BUNDLE_MARKER}`, { kind: "file", text: "someone else's\r\n" });
      },
      /holds a \.gentle-shell-bundle that Gentle Shell did not write/,
    ],
    [
      "a marker that is not a file",
      (w) => {
        w.nodes.set(FIRST, { kind: "directory", owner: USER, protected: true, aces: profileAces() });
        w.nodes.set(`${FIRST}\\${WINDOWS_BUNDLE_MARKER}`, { kind: "link" });
      },
      /is not a regular file/,
    ],
    ["%LOCALAPPDATA% missing on disk", (w) => w.nodes.delete(LOCAL), /%LOCALAPPDATA% .* does not exist/],
    ["%LOCALAPPDATA% is a link", (w) => w.nodes.set(LOCAL, { kind: "link" }), /is not a real folder/],
    ["a DACL that does not read back as set", (w) => (w.daclWorks = false), /could not be made private/],
    ["a failing Windows process", (w) => (w.failInspect = (p) => p === FIRST), /^Windows prerequisite process failed$/],
  ];

  it.each(refusals)("%s", async (_what, arrange, message) => {
    const w = new FakeWindows();
    arrange(w);
    const marker = w.nodes.get(`${FIRST}\\${WINDOWS_BUNDLE_MARKER}`);
    await expect(ensureWindowsPrivateFolder(ENV, w)).rejects.toThrow(message);
    expect(w.calls.some((c) => c.includes(PROFILE + "\\."))).toBe(false);
    expect(w.calls.filter((c) => c.startsWith("write"))).toEqual([]);
    expect(w.nodes.get(`${FIRST}\\${WINDOWS_BUNDLE_MARKER}`)).toEqual(marker);
  });

  it("a foreign marker stops before the DACL is touched", async () => {
    const w = new FakeWindows();
    w.nodes.set(FIRST, { kind: "directory", owner: USER, protected: false, aces: profileAces() });
    w.nodes.set(`${FIRST}\\${WINDOWS_BUNDLE_MARKER}`, { kind: "file", text: WINDOWS_BUNDLE_MARKER_TEXT.trimEnd() });
    await expect(ensureWindowsPrivateFolder(ENV, w)).rejects.toThrow(WindowsPrivateFolderError);
    expect(w.calls.filter((c) => c.startsWith("dacl"))).toEqual([]);
  });

  it.each([
    [{}],
    [{ LOCALAPPDATA: "" }],
    [{ LOCALAPPDATA: "AppData\\Local" }],
    [{ LOCALAPPDATA: "\\\\server\\share\\Local" }],
    [{ LOCALAPPDATA: "C:relative" }],
  ])("%LOCALAPPDATA% not a drive-absolute folder (%o) is an error before anything runs", async (env) => {
    const w = new FakeWindows();
    await expect(ensureWindowsPrivateFolder({ ...env, USERPROFILE: PROFILE }, w)).rejects.toThrow(/%LOCALAPPDATA% is not set to an absolute folder/);
    expect(w.calls).toEqual([]);
  });
});

describe("untrustedReason", () => {
  const trusted = new Set([USER, SID.SYSTEM, SID.ADMINISTRATORS, SID.TRUSTED_INSTALLER]);
  const dir = (aces: WindowsAce[], owner = USER): WindowsFolderState => ({ kind: "directory", owner, protected: true, aces });

  it.each([
    ["write data / add file", 0x2],
    ["append data / add subfolder", 0x4],
    ["write extended attributes", 0x10],
    ["delete child", 0x40],
    ["write attributes", 0x100],
    ["delete", 0x10000],
    ["change permissions", 0x40000],
    ["take ownership", 0x80000],
    ["generic all", 0x10000000],
    ["generic write", 0x40000000],
  ])("%s for another account is untrusted", (_what, rights) => {
    expect(untrustedReason(dir([full(OTHER, { rights })]), trusted)).toBe("lets another account change it");
  });

  it.each([
    ["read & execute", READ_EXECUTE],
    ["generic read", 0x80000000],
    ["generic execute", 0x20000000],
    ["synchronize", 0x100000],
  ])("%s for another account is fine", (_what, rights) => {
    expect(untrustedReason(dir([full(OTHER, { rights })]), trusted)).toBeNull();
  });

  it("full control for the trusted accounts and a deny for anyone are fine", () => {
    expect(untrustedReason(dir([...profileAces(), full(SID.TRUSTED_INSTALLER), full(EVERYONE, { allow: false })]), trusted)).toBeNull();
  });

  it("CREATOR OWNER, CREATOR GROUP and OWNER RIGHTS stand for checked accounts", () => {
    expect(
      untrustedReason(dir([full(SID.CREATOR_OWNER, { inheritOnly: true }), full(SID.CREATOR_GROUP, { inheritOnly: true }), full(SID.OWNER_RIGHTS)]), trusted),
    ).toBeNull();
  });
});

describe("the real adapter's process calls (a fake windowsProcessCheck)", () => {
  const ENV_SYS = { SystemRoot: "C:\\Windows" };
  const recorder = (stdout: string) => {
    const requests: WindowsProcessRequest[] = [];
    const check = async (r: WindowsProcessRequest) => {
      requests.push(r);
      return { stdout, stderr: "" };
    };
    return { requests, check };
  };
  const decoded = (r: WindowsProcessRequest) => Buffer.from(r.args![r.args!.length - 1], "base64").toString("utf16le");
  const hostile = 'C:\\Users\\o\'brien $(calc) `a` "q" ;& %PATH%\\AppData\\Local\\gentle-shell';

  it("whoami.exe from %SystemRoot%\\System32 gives the current user's SID", async () => {
    const r = recorder(`"desktop-1\\alice","${USER}"\r\n`);
    expect(await windowsPrivateFolderAdapter({ env: ENV_SYS, check: r.check }).currentUserSid()).toBe(USER);
    expect(r.requests).toEqual([{ command: "C:\\Windows\\System32\\whoami.exe", args: ["/user", "/fo", "csv", "/nh"] }]);
  });

  it("inspect: Windows PowerShell from System32, the path only as environment data, never in the script", async () => {
    const r = recorder("kind absent\r\n");
    expect(await windowsPrivateFolderAdapter({ env: ENV_SYS, check: r.check }).inspect(hostile)).toEqual({ kind: "absent" });
    const [req] = r.requests;
    expect(req.command).toBe("C:\\Windows\\System32\\WindowsPowerShell\\v1.0\\powershell.exe");
    expect(req.args!.slice(0, -1)).toEqual(["-NoLogo", "-NoProfile", "-NonInteractive", "-EncodedCommand"]);
    expect(req.env).toEqual({ [PATH_VARIABLE]: hostile });
    expect(decoded(req)).toBe(PS_INSPECT);
    expect(req.args!.join(" ")).not.toContain("o'brien");
    expect(PS_INSPECT).not.toContain("o'brien");
  });

  it("setProtectedDacl: the path and the SIDs as environment data, never in the script", async () => {
    const r = recorder("");
    await windowsPrivateFolderAdapter({ env: ENV_SYS, check: r.check }).setProtectedDacl(hostile, [USER, SID.SYSTEM]);
    const [req] = r.requests;
    expect(req.env).toEqual({ [PATH_VARIABLE]: hostile, [SIDS_VARIABLE]: `${USER},${SID.SYSTEM}` });
    expect(decoded(req)).toBe(PS_SET_PROTECTED_DACL);
    expect(PS_SET_PROTECTED_DACL).not.toContain(USER);
  });

  it("setProtectedDacl refuses an empty or malformed account list without running anything", async () => {
    const r = recorder("");
    const adapter = windowsPrivateFolderAdapter({ env: ENV_SYS, check: r.check });
    await expect(adapter.setProtectedDacl("C:\\x", [])).rejects.toThrow(WindowsPrivateFolderError);
    await expect(adapter.setProtectedDacl("C:\\x", ["S-1-5-18,S-1-1-0"])).rejects.toThrow(WindowsPrivateFolderError);
    await expect(adapter.setProtectedDacl("C:\\x", ["Everyone"])).rejects.toThrow(WindowsPrivateFolderError);
    expect(r.requests).toEqual([]);
  });

  it("without a drive-absolute %SystemRoot% no Windows tool is started", async () => {
    for (const env of [{}, { SystemRoot: "Windows" }, { SystemRoot: "\\\\evil\\share" }]) {
      const r = recorder("");
      await expect(windowsPrivateFolderAdapter({ env, check: r.check }).currentUserSid()).rejects.toThrow(/%SystemRoot%/);
      expect(r.requests).toEqual([]);
    }
  });

  it("a failing process is passed on as windowsProcessCheck's error", async () => {
    const adapter = windowsPrivateFolderAdapter({
      env: ENV_SYS,
      check: async () => {
        throw windowsProcessFailure({ status: 5 });
      },
    });
    await expect(adapter.inspect("C:\\x")).rejects.toThrow(/^Windows prerequisite process failed$/);
  });

  it("parseInspect reads owner, protection and entries; rights become unsigned", () => {
    const out = [
      "kind directory",
      `owner ${USER}`,
      "protected 1",
      `ace allow 2032127 0 0 ${USER}`,
      `ace deny ${0x40000} 0 1 ${EVERYONE}`,
      `ace allow -2147483648 1 0 ${SID.CREATOR_OWNER}`,
      "",
    ].join("\r\n");
    expect(parseInspect(out)).toEqual({
      kind: "directory",
      owner: USER,
      protected: true,
      aces: [
        { allow: true, rights: FULL_CONTROL, inheritOnly: false, inherited: false, sid: USER },
        { allow: false, rights: 0x40000, inheritOnly: false, inherited: true, sid: EVERYONE },
        { allow: true, rights: 0x80000000, inheritOnly: true, inherited: false, sid: SID.CREATOR_OWNER },
      ],
    });
    for (const kind of ["absent", "link", "file", "unreadable"]) expect(parseInspect(`kind ${kind}\n`)).toEqual({ kind });
  });

  it.each([
    "",
    "kind maybe",
    "kind directory\nprotected 1",
    `kind directory\nowner ${USER}`,
    `kind directory\nowner ${USER}\nprotected 1\nace allow x 0 0 ${USER}`,
    `kind directory\nowner NT AUTHORITY\\SYSTEM\nprotected 1`,
  ])("parseInspect refuses an unexpected answer %j", (out) => {
    expect(() => parseInspect(out)).toThrow(WindowsPrivateFolderError);
  });

  it("parseWhoami refuses an answer without a SID", () => {
    expect(() => parseWhoami('"desktop\\alice","alice"')).toThrow(WindowsPrivateFolderError);
    expect(() => parseWhoami("")).toThrow(WindowsPrivateFolderError);
  });
});

describe("the real adapter's folder and marker (node:fs on a real temp folder)", () => {
  let dir: string | undefined;
  afterEach(async () => {
    if (dir) await fs.rm(dir, { recursive: true, force: true });
    dir = undefined;
  });
  const adapter = windowsPrivateFolderAdapter({
    env: { SystemRoot: "C:\\Windows" },
    check: async () => {
      throw new Error("no process expected");
    },
  });

  it("createFolder makes one folder, never its parents; an existing one is fine", async () => {
    dir = await fs.mkdtemp(join(tmpdir(), "gss-wpriv-"));
    await adapter.createFolder(join(dir, "a"));
    await adapter.createFolder(join(dir, "a"));
    expect((await fs.stat(join(dir, "a"))).isDirectory()).toBe(true);
    await expect(adapter.createFolder(join(dir, "x", "y"))).rejects.toMatchObject({ code: "ENOENT" });
    await expect(fs.stat(join(dir, "x"))).rejects.toThrow();
  });

  it("readMarker: absent, our text, and anything not a small regular file is other", async () => {
    dir = await fs.mkdtemp(join(tmpdir(), "gss-wpriv-"));
    const m = join(dir, WINDOWS_BUNDLE_MARKER);
    expect(await adapter.readMarker(m)).toEqual({ kind: "absent" });
    await fs.writeFile(m, WINDOWS_BUNDLE_MARKER_TEXT);
    expect(await adapter.readMarker(m)).toEqual({ kind: "file", text: WINDOWS_BUNDLE_MARKER_TEXT });
    await fs.rm(m);
    await fs.writeFile(join(dir, "elsewhere"), WINDOWS_BUNDLE_MARKER_TEXT);
    await fs.symlink(join(dir, "elsewhere"), m);
    expect(await adapter.readMarker(m)).toEqual({ kind: "other" });
    await fs.rm(m);
    await fs.mkdir(m);
    expect(await adapter.readMarker(m)).toEqual({ kind: "other" });
    await fs.rmdir(m);
    await fs.writeFile(m, "x".repeat(5000));
    expect(await adapter.readMarker(m)).toEqual({ kind: "other" });
  });

  it("writeMarker never replaces anything and never writes through a link", async () => {
    dir = await fs.mkdtemp(join(tmpdir(), "gss-wpriv-"));
    const m = join(dir, WINDOWS_BUNDLE_MARKER);
    await adapter.writeMarker(m, WINDOWS_BUNDLE_MARKER_TEXT);
    expect(await fs.readFile(m, "utf8")).toBe(WINDOWS_BUNDLE_MARKER_TEXT);
    await expect(adapter.writeMarker(m, "other")).rejects.toMatchObject({ code: "EEXIST" });
    expect(await fs.readFile(m, "utf8")).toBe(WINDOWS_BUNDLE_MARKER_TEXT);
    await fs.rm(m);
    const target = join(dir, "target");
    await fs.symlink(target, m);
    await expect(adapter.writeMarker(m, WINDOWS_BUNDLE_MARKER_TEXT)).rejects.toMatchObject({ code: "EEXIST" });
    await expect(fs.stat(target)).rejects.toThrow();
  });
});
