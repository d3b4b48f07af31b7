/**
 * The real Windows private folder adapter (spec: "Layout", Windows
 * paragraph): its process calls through a fake windowsProcessCheck (whoami,
 * the PowerShell scripts with paths and SIDs only as environment data, the
 * parsers of their answers), and its folder and marker parts on real temp
 * folders. The same adapter on real Windows: test/windows/.
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
import { FULL_CONTROL, SID, WINDOWS_PREFIX_MARKER, WINDOWS_PREFIX_MARKER_TEXT, WindowsPrivateFolderError } from "../../../src/install/windows-private/rule";
import { powerShellScript } from "../../../src/io/powershell";
import type { WindowsProcessRequest } from "../../../src/io/windows-process/check";
import { windowsProcessFailure } from "../../../src/io/windows-process/failure";
import { requires } from "../../support/capabilities";
import { EVERYONE, USER } from "./fake-windows";

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
    expect(decoded(req)).toBe(powerShellScript(PS_INSPECT));
    expect(req.args!.join(" ")).not.toContain("o'brien");
    expect(PS_INSPECT).not.toContain("o'brien");
  });

  it("setProtectedDacl: the path and the SIDs as environment data, never in the script", async () => {
    const r = recorder("");
    await windowsPrivateFolderAdapter({ env: ENV_SYS, check: r.check }).setProtectedDacl(hostile, [USER, SID.SYSTEM]);
    const [req] = r.requests;
    expect(req.env).toEqual({ [PATH_VARIABLE]: hostile, [SIDS_VARIABLE]: `${USER},${SID.SYSTEM}` });
    expect(decoded(req)).toBe(powerShellScript(PS_SET_PROTECTED_DACL));
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
    const m = join(dir, WINDOWS_PREFIX_MARKER);
    expect(await adapter.readMarker(m)).toEqual({ kind: "absent" });
    await fs.writeFile(m, WINDOWS_PREFIX_MARKER_TEXT);
    expect(await adapter.readMarker(m)).toEqual({ kind: "file", text: WINDOWS_PREFIX_MARKER_TEXT });
    await fs.rm(m);
    await fs.mkdir(m);
    expect(await adapter.readMarker(m)).toEqual({ kind: "other" });
    await fs.rmdir(m);
    await fs.writeFile(m, "x".repeat(5000));
    expect(await adapter.readMarker(m)).toEqual({ kind: "other" });
  });

  it("readMarker: a link, even to a file with our text, is other", async (ctx) => {
    requires(ctx, "symlinks");
    dir = await fs.mkdtemp(join(tmpdir(), "gss-wpriv-"));
    const m = join(dir, WINDOWS_PREFIX_MARKER);
    await fs.writeFile(join(dir, "elsewhere"), WINDOWS_PREFIX_MARKER_TEXT);
    await fs.symlink(join(dir, "elsewhere"), m);
    expect(await adapter.readMarker(m)).toEqual({ kind: "other" });
  });

  it("writeMarker never replaces anything", async () => {
    dir = await fs.mkdtemp(join(tmpdir(), "gss-wpriv-"));
    const m = join(dir, WINDOWS_PREFIX_MARKER);
    await adapter.writeMarker(m, WINDOWS_PREFIX_MARKER_TEXT);
    expect(await fs.readFile(m, "utf8")).toBe(WINDOWS_PREFIX_MARKER_TEXT);
    await expect(adapter.writeMarker(m, "other")).rejects.toMatchObject({ code: "EEXIST" });
    expect(await fs.readFile(m, "utf8")).toBe(WINDOWS_PREFIX_MARKER_TEXT);
  });

  it("writeMarker never writes through a link, even a dangling one", async (ctx) => {
    requires(ctx, "symlinks");
    dir = await fs.mkdtemp(join(tmpdir(), "gss-wpriv-"));
    const m = join(dir, WINDOWS_PREFIX_MARKER);
    const target = join(dir, "target");
    await fs.symlink(target, m);
    await expect(adapter.writeMarker(m, WINDOWS_PREFIX_MARKER_TEXT)).rejects.toMatchObject({ code: "EEXIST" });
    await expect(fs.stat(target)).rejects.toThrow();
  });
});
