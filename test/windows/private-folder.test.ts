/**
 * The real Windows adapter on real NTFS (Windows CI job only:
 * `npx vitest run --config test/windows/vitest.config.ts`). Every test fails
 * off Windows instead of skipping.
 *
 * The folders are fresh temporary stand-ins for %LOCALAPPDATA% and
 * %USERPROFILE%; permissions are checked independently of the adapter, via
 * the SDDL that Get-Acl reports and via icacls.
 */
import { execFileSync } from "node:child_process";
import { promises as fs } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { windowsPrivateFolderAdapter } from "../../src/install/windows-private/adapter";
import { WINDOWS_PREFIX_MARKER, WINDOWS_PREFIX_MARKER_TEXT, ensureWindowsPrivateFolder } from "../../src/install/windows-private/rule";
import { BATCH_REJECTED, windowsProcessCheck } from "../../src/io/windows-process/check";
import { WINDOWS_PROCESS_FAILED, type WindowsPrerequisiteError } from "../../src/io/windows-process/failure";

function requireWindows(): void {
  if (process.platform !== "win32") {
    throw new Error(`test/windows needs Windows (NTFS ACLs, icacls, Windows PowerShell); this is ${process.platform}`);
  }
}

const SYSTEM_ROOT = process.env.SystemRoot ?? "C:\\Windows";
const POWERSHELL = `${SYSTEM_ROOT}\\System32\\WindowsPowerShell\\v1.0\\powershell.exe`;
const ICACLS = `${SYSTEM_ROOT}\\System32\\icacls.exe`;
const WHOAMI = `${SYSTEM_ROOT}\\System32\\whoami.exe`;

const made: string[] = [];
afterAll(async () => {
  for (const dir of made) await fs.rm(dir, { recursive: true, force: true }).catch(() => undefined);
});

async function scratch(name: string): Promise<string> {
  const dir = await fs.mkdtemp(join(tmpdir(), `gss-win-${name}-`));
  made.push(dir);
  // The long form, as %LOCALAPPDATA% would be (tmpdir() may hold 8.3 short names).
  return fs.realpath(dir);
}

function sddl(path: string): string {
  return execFileSync(POWERSHELL, ["-NoLogo", "-NoProfile", "-NonInteractive", "-Command", "(Get-Acl -LiteralPath $env:GSS_P).Sddl"], {
    env: { ...process.env, GSS_P: path },
    encoding: "utf8",
  }).trim();
}

function icacls(path: string, ...args: string[]): string {
  return execFileSync(ICACLS, [path, ...args], { encoding: "utf8" });
}

function userSid(): string {
  const out = execFileSync(WHOAMI, ["/user", "/fo", "csv", "/nh"], { encoding: "utf8" });
  return /"(S-1-[\d-]+)"\s*$/.exec(out.trim())![1];
}

/** The DACL part of an SDDL: its flags and its ACE strings. */
function dacl(text: string): { flags: string; aces: string[] } {
  const d = /D:([A-Z]*)((?:\([^)]*\))*)/.exec(text);
  if (!d) throw new Error(`no DACL in ${text}`);
  return { flags: d[1], aces: d[2].match(/\([^)]*\)/g) ?? [] };
}

function expectOurDacl(path: string): void {
  const { flags, aces } = dacl(sddl(path));
  expect(flags).toContain("P"); // protected: nothing inherited from above
  const sid = userSid();
  // SDDL writes the built-in Administrator account (RID 500) as LA.
  const user = sid.endsWith("-500") ? `(A;OICI;FA;;;LA)` : `(A;OICI;FA;;;${sid})`;
  expect(aces.sort()).toEqual([user, "(A;OICI;FA;;;BA)", "(A;OICI;FA;;;SY)"].sort());
}

describe("Windows only", () => {
  it("runs on Windows", () => {
    expect(process.platform).toBe("win32");
  });
});

describe("windowsProcessCheck on Windows", () => {
  it("runs whoami.exe by absolute path and gives its output", async () => {
    requireWindows();
    const out = await windowsProcessCheck({ command: WHOAMI, args: ["/user", "/fo", "csv", "/nh"] }, { baseEnv: process.env });
    expect(out.stdout).toMatch(/"S-1-5-[\d-]+"/);
  });

  it("starts in %SystemRoot%\\System32 and passes data through the environment", async () => {
    requireWindows();
    const out = await windowsProcessCheck(
      {
        command: POWERSHELL,
        args: ["-NoLogo", "-NoProfile", "-NonInteractive", "-Command", "(Get-Location).Path; $env:GSS_DATA"],
        env: { GSS_DATA: "a b 'c' $(x) %PATH%" },
      },
      { baseEnv: process.env },
    );
    const [cwd, data] = out.stdout.trim().split(/\r?\n/);
    expect(cwd.toLowerCase()).toBe(`${SYSTEM_ROOT}\\System32`.toLowerCase());
    expect(data).toBe("a b 'c' $(x) %PATH%");
  });

  it("never runs a .cmd or .bat file", async () => {
    requireWindows();
    const dir = await scratch("cmd");
    const flag = join(dir, "ran.txt");
    for (const name of ["evil.cmd", "evil.bat", "EVIL.CMD."]) {
      const script = join(dir, name.replace(/\.$/, ""));
      await fs.writeFile(script, `@echo off\r\necho ran> "${flag}"\r\n`);
      const error = (await windowsProcessCheck({ command: join(dir, name) }, { baseEnv: process.env }).catch((e) => e)) as WindowsPrerequisiteError;
      expect(error.message).toBe(WINDOWS_PROCESS_FAILED);
      expect(error.cause.processError?.code).toBe(BATCH_REJECTED);
    }
    await expect(fs.access(flag)).rejects.toThrow();
  });

  it("a missing executable fails with the sanitized native code only", async () => {
    requireWindows();
    const missing = join(await scratch("missing"), "alice-private-tool.exe");
    const error = (await windowsProcessCheck({ command: missing }, { baseEnv: process.env }).catch((e) => e)) as WindowsPrerequisiteError;
    expect(error.message).toBe(WINDOWS_PROCESS_FAILED);
    expect(error.cause.processError).toMatchObject({ code: "ENOENT", message: "ENOENT" });
    expect(JSON.stringify(error.cause) + error.cause.stack).not.toContain("alice-private-tool");
  });

  it("a failing PowerShell keeps its status; a path in its error output is suppressed", async () => {
    requireWindows();
    const error = (await windowsProcessCheck(
      {
        command: POWERSHELL,
        args: [
          "-NoLogo",
          "-NoProfile",
          "-NonInteractive",
          "-Command",
          "[Console]::Error.WriteLine('cannot open C:\\Users\\alice'); [Console]::Error.WriteLine('Access is denied.'); exit 3",
        ],
      },
      { baseEnv: process.env },
    ).catch((e) => e)) as WindowsPrerequisiteError;
    expect(error.cause.status).toBe(3);
    expect(error.cause.stderr).toBe("[line suppressed]\nAccess is denied.");
  });
});

describe("ensureWindowsPrivateFolder with the real adapter", () => {
  it("claims %LOCALAPPDATA%\\gentle-shell with a protected DACL and the exact marker; a second run keeps it", async () => {
    requireWindows();
    const local = await scratch("local");
    const profile = await scratch("profile");
    const result = await ensureWindowsPrivateFolder(
      { ...process.env, LOCALAPPDATA: local, USERPROFILE: profile },
      windowsPrivateFolderAdapter({ env: process.env }),
    );
    expect(result).toEqual({ prefix: join(local, "gentle-shell"), marker: join(local, "gentle-shell", WINDOWS_PREFIX_MARKER), fallback: false, created: true });
    expectOurDacl(result.prefix);
    expect(await fs.readFile(result.marker, "utf8")).toBe(WINDOWS_PREFIX_MARKER_TEXT);
    // Files created inside inherit the private DACL.
    await fs.writeFile(join(result.prefix, "child.txt"), "x");
    const child = dacl(sddl(join(result.prefix, "child.txt")));
    expect(child.aces.every((a) => /^\(A;ID;FA;;;(SY|BA|LA|S-1-5-[\d-]+)\)$/.test(a))).toBe(true);
    expect(child.aces).toHaveLength(3);

    const again = await ensureWindowsPrivateFolder(
      { ...process.env, LOCALAPPDATA: local, USERPROFILE: profile },
      windowsPrivateFolderAdapter({ env: process.env }),
    );
    expect(again).toEqual({ ...result, created: false });
    await expect(fs.access(join(profile, ".gentle-shell-bundle"))).rejects.toThrow();
  });

  it("a path with spaces, quotes, $, % and non-ASCII letters works (data, not script text)", async () => {
    requireWindows();
    const base = await scratch("odd");
    const local = join(base, "a b 'c' $(x) %PATH% é ü");
    await fs.mkdir(local);
    const result = await ensureWindowsPrivateFolder(
      { ...process.env, LOCALAPPDATA: local, USERPROFILE: base },
      windowsPrivateFolderAdapter({ env: process.env }),
    );
    expect(result.prefix).toBe(join(local, "gentle-shell"));
    expectOurDacl(result.prefix);
  });

  it("an existing folder with an extra read entry is claimed and loses it", async () => {
    requireWindows();
    const local = await scratch("read");
    const first = join(local, "gentle-shell");
    await fs.mkdir(first);
    icacls(first, "/grant", "*S-1-5-32-545:(OI)(CI)RX");
    expect(sddl(first)).toContain(";;;BU)");
    const result = await ensureWindowsPrivateFolder(
      { ...process.env, LOCALAPPDATA: local, USERPROFILE: await scratch("p") },
      windowsPrivateFolderAdapter({ env: process.env }),
    );
    expect(result.prefix).toBe(first);
    expectOurDacl(first);
  });

  it("%LOCALAPPDATA% writable by Everyone: falls back to %USERPROFILE%\\.gentle-shell-bundle and creates nothing in the first", async () => {
    requireWindows();
    const local = await scratch("everyone");
    const profile = await scratch("profile");
    icacls(local, "/grant", "*S-1-1-0:(OI)(CI)M");
    const result = await ensureWindowsPrivateFolder(
      { ...process.env, LOCALAPPDATA: local, USERPROFILE: profile },
      windowsPrivateFolderAdapter({ env: process.env }),
    );
    expect(result.prefix).toBe(join(profile, ".gentle-shell-bundle"));
    expect(result.fallback).toBe(true);
    expect(result.firstRejected).toMatch(/lets another account change it/);
    expectOurDacl(result.prefix);
    expect(await fs.readFile(join(result.prefix, WINDOWS_PREFIX_MARKER), "utf8")).toBe(WINDOWS_PREFIX_MARKER_TEXT);
    await expect(fs.access(join(local, "gentle-shell"))).rejects.toThrow();
  });

  it("an existing first folder that Users may modify is left untouched and the fallback is used", async () => {
    requireWindows();
    const local = await scratch("users");
    const first = join(local, "gentle-shell");
    await fs.mkdir(first);
    icacls(first, "/grant", "*S-1-5-32-545:(OI)(CI)M");
    const before = sddl(first);
    const result = await ensureWindowsPrivateFolder(
      { ...process.env, LOCALAPPDATA: local, USERPROFILE: await scratch("p") },
      windowsPrivateFolderAdapter({ env: process.env }),
    );
    expect(result.fallback).toBe(true);
    expect(sddl(first)).toBe(before);
    await expect(fs.access(join(first, WINDOWS_PREFIX_MARKER))).rejects.toThrow();
  });

  it("a junction in place of the folder stops with an error and does not fall back", async () => {
    requireWindows();
    const local = await scratch("junction");
    const profile = await scratch("profile");
    const target = await scratch("target");
    await fs.symlink(target, join(local, "gentle-shell"), "junction");
    await expect(
      ensureWindowsPrivateFolder({ ...process.env, LOCALAPPDATA: local, USERPROFILE: profile }, windowsPrivateFolderAdapter({ env: process.env })),
    ).rejects.toThrow(/is a link/);
    await expect(fs.access(join(profile, ".gentle-shell-bundle"))).rejects.toThrow();
    await expect(fs.access(join(target, WINDOWS_PREFIX_MARKER))).rejects.toThrow();
  });

  it("the adapter reports absent, file and directory states", async () => {
    requireWindows();
    const adapter = windowsPrivateFolderAdapter({ env: process.env });
    const dir = await scratch("states");
    expect(await adapter.inspect(join(dir, "none"))).toEqual({ kind: "absent" });
    await fs.writeFile(join(dir, "f"), "x");
    expect(await adapter.inspect(join(dir, "f"))).toEqual({ kind: "file" });
    const state = await adapter.inspect(dir);
    expect(state.kind).toBe("directory");
    expect(await adapter.currentUserSid()).toBe(userSid());
  });
});
