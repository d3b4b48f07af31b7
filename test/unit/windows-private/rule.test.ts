/**
 * ensureWindowsPrivateFolder (spec: "Layout", Windows paragraph) through
 * FakeWindows, an adapter that models folders, owners and DACLs: the first
 * folder, the fallback and when it is taken, the refusals that never fall
 * back, and untrustedReason's reading of a DACL. The real adapter:
 * adapter.test.ts here, and on real Windows test/windows/.
 */
import { describe, expect, it } from "vitest";
import {
  SID,
  WINDOWS_PREFIX_MARKER,
  WINDOWS_PREFIX_MARKER_TEXT,
  WindowsPrivateFolderError,
  ensureWindowsPrivateFolder,
  untrustedReason,
  type WindowsAce,
  type WindowsFolderState,
} from "../../../src/install/windows-private/rule";
import {
  AUTHENTICATED,
  ENV,
  EVERYONE,
  FALLBACK,
  FIRST,
  FakeWindows,
  LOCAL,
  MODIFY,
  OTHER,
  PROFILE,
  READ_EXECUTE,
  USER,
  USERS,
  full,
  profileAces,
} from "./fake-windows";

describe("ensureWindowsPrivateFolder: %LOCALAPPDATA%\\gentle-shell first", () => {
  it("creates it, claims it with a protected DACL for the user, SYSTEM and Administrators, then writes the marker", async () => {
    const w = new FakeWindows();
    const result = await ensureWindowsPrivateFolder(ENV, w);
    expect(result).toEqual({ prefix: FIRST, marker: `${FIRST}\\.gentle-shell-bundle`, fallback: false, created: true });
    const folder = w.nodes.get(FIRST)!;
    expect(folder.protected).toBe(true);
    expect(folder.aces).toEqual([full(USER), full(SID.SYSTEM), full(SID.ADMINISTRATORS)]);
    expect(w.nodes.get(`${FIRST}\\${WINDOWS_PREFIX_MARKER}`)).toEqual({ kind: "file", text: WINDOWS_PREFIX_MARKER_TEXT });
    const order = w.calls.filter((c) => /^(mkdir|dacl|write) /.test(c)).map((c) => c.split(" ")[0]);
    expect(order).toEqual(["mkdir", "dacl", "write"]);
    expect(w.touched(PROFILE + "\\.")).toEqual([]);
  });

  it("the marker is .gentle-shell-bundle with its exact text", () => {
    expect(WINDOWS_PREFIX_MARKER).toBe(".gentle-shell-bundle");
    expect(WINDOWS_PREFIX_MARKER_TEXT).toBe("This folder is a Gentle Shell bundled install. Remove it with: gentle-shell self-uninstall\r\n");
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
    expect(w.nodes.get(`${FALLBACK}\\${WINDOWS_PREFIX_MARKER}`)!.text).toBe(WINDOWS_PREFIX_MARKER_TEXT);
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
        w.nodes.set(`${FIRST}\\${WINDOWS_PREFIX_MARKER}`, { kind: "file", text: "someone else's\r\n" });
      },
      /holds a \.gentle-shell-bundle that Gentle Shell did not write/,
    ],
    [
      "a marker that is not a file",
      (w) => {
        w.nodes.set(FIRST, { kind: "directory", owner: USER, protected: true, aces: profileAces() });
        w.nodes.set(`${FIRST}\\${WINDOWS_PREFIX_MARKER}`, { kind: "link" });
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
    const marker = w.nodes.get(`${FIRST}\\${WINDOWS_PREFIX_MARKER}`);
    await expect(ensureWindowsPrivateFolder(ENV, w)).rejects.toThrow(message);
    expect(w.calls.some((c) => c.includes(PROFILE + "\\."))).toBe(false);
    expect(w.calls.filter((c) => c.startsWith("write"))).toEqual([]);
    expect(w.nodes.get(`${FIRST}\\${WINDOWS_PREFIX_MARKER}`)).toEqual(marker);
  });

  it("a foreign marker stops before the DACL is touched", async () => {
    const w = new FakeWindows();
    w.nodes.set(FIRST, { kind: "directory", owner: USER, protected: false, aces: profileAces() });
    w.nodes.set(`${FIRST}\\${WINDOWS_PREFIX_MARKER}`, { kind: "file", text: WINDOWS_PREFIX_MARKER_TEXT.trimEnd() });
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
