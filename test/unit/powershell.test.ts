/**
 * The one Windows PowerShell runner (src/io/powershell.ts), on any host: a
 * fake spawn handed to windowsProcessCheck shows what would be started on
 * Windows (command, arguments, folder, environment). Real PowerShell runs in
 * the Windows CI job (test/windows/).
 */
import { exitWith, fakeSpawn } from "../support/fake-spawn";
import { afterEach, describe, expect, it, vi } from "vitest";
import {
  POWERSHELL_ARGS,
  WindowsPowerShellUnavailableError,
  powerShellEnvironment,
  runPowerShell,
  runPowerShellForStatus,
  startDetachedPowerShell,
  windowsPowerShellPath,
} from "../../src/io/powershell";
import { windowsPrivateFolderAdapter } from "../../src/install/windows-private/adapter";
import { powerShellScript, windowsPowerShellRunner, WindowsPowerShellRestrictedError } from "../../src/io/powershell";
import type { WindowsProcessDeps, WindowsProcessRequest } from "../../src/io/windows-process/check";
import { WINDOWS_PROCESS_FAILED, isWindowsPrerequisiteError } from "../../src/io/windows-process/failure";

const POWERSHELL = "C:\\Windows\\System32\\WindowsPowerShell\\v1.0\\powershell.exe";

/** A spawn that records what it was asked to start and exits with `code`. */
function fakeSpawnExiting(code = 0, stdout = "", stderr = "") {
  return fakeSpawn(exitWith(code, stdout, stderr));
}

const decoded = (args: readonly string[]) => Buffer.from(args[args.length - 1], "base64").toString("utf16le");

afterEach(() => {
  vi.unstubAllEnvs();
});

describe("runPowerShell: an absolute powershell.exe under %SystemRoot%", () => {
  it("starts %SystemRoot%\\System32\\WindowsPowerShell\\v1.0\\powershell.exe, never a bare name, through windowsProcessCheck's rules", async () => {
    const fake = fakeSpawnExiting(0, "ok\r\n");
    const out = await runPowerShell("'ok'", {}, { env: { SystemRoot: "C:\\Windows\\", PATH: "C:\\evil" }, spawn: fake.spawn, platform: "win32" });
    expect(out).toEqual({ stdout: "ok\r\n", stderr: "" });
    expect(fake.calls).toHaveLength(1);
    const [call] = fake.calls;
    expect(call.command).toBe(POWERSHELL);
    expect(call.options).toMatchObject({ cwd: "C:\\Windows\\System32", shell: false, windowsHide: true, stdio: ["ignore", "pipe", "pipe"] });
  });

  it("reads SystemRoot in any case, and windir when SystemRoot is not set", () => {
    expect(windowsPowerShellPath({ SYSTEMROOT: "D:\\Win" })).toBe("D:\\Win\\System32\\WindowsPowerShell\\v1.0\\powershell.exe");
    expect(windowsPowerShellPath({ windir: "C:\\Windows" })).toBe(POWERSHELL);
  });

  it("the script goes encoded after -NoLogo -NoProfile -NonInteractive and the caller's switches; data only as environment", async () => {
    const requests: WindowsProcessRequest[] = [];
    const check = async (r: WindowsProcessRequest) => {
      requests.push(r);
      return { stdout: "", stderr: "" };
    };
    const script = "$env:GSS_DATA; 'é'";
    await runPowerShell(script, { GSS_DATA: "a 'b' $(c)" }, { env: { SystemRoot: "C:\\Windows" }, args: ["-ExecutionPolicy", "Bypass"], check });
    const [req] = requests;
    expect(req.command).toBe(POWERSHELL);
    expect(req.args!.slice(0, -1)).toEqual([...POWERSHELL_ARGS, "-ExecutionPolicy", "Bypass", "-EncodedCommand"]);
    expect(POWERSHELL_ARGS).toEqual(["-NoLogo", "-NoProfile", "-NonInteractive"]);
    expect(decoded(req.args!)).toBe(powerShellScript(script));
    expect(req.env).toEqual({ GSS_DATA: "a 'b' $(c)" });
    expect(req.args!.join(" ")).not.toContain("'b'");
  });
});

describe("runPowerShell refuses without a drive-absolute %SystemRoot%", () => {
  const bad: Record<string, string>[] = [
    {},
    { SystemRoot: "" },
    { SystemRoot: "Windows" },
    { SystemRoot: "\\\\evil\\share\\Windows" },
    { SystemRoot: "C:" },
    { PATH: "C:\\Windows\\System32" },
  ];

  it.each(bad)("%j: nothing starts", async (env) => {
    const fake = fakeSpawnExiting();
    const check = vi.fn();
    await expect(runPowerShell("'x'", {}, { env, spawn: fake.spawn, platform: "win32" })).rejects.toThrow(WindowsPowerShellUnavailableError);
    await expect(runPowerShell("'x'", {}, { env, check })).rejects.toThrow(/%SystemRoot%/);
    await expect(runPowerShellForStatus("'x'", {}, { env, spawn: fake.spawn, platform: "win32" })).rejects.toThrow(WindowsPowerShellUnavailableError);
    expect(fake.calls).toEqual([]);
    expect(check).not.toHaveBeenCalled();
  });

  it("path-apply's windowsPowerShellRunner refuses too instead of running a bare powershell.exe", async () => {
    vi.stubEnv("SystemRoot", "");
    vi.stubEnv("windir", "");
    await expect(windowsPowerShellRunner(process.env)("'x'", {})).rejects.toThrow(WindowsPowerShellUnavailableError);
  });
});

describe("runPowerShell passes a minimal environment: the data, SystemRoot, windir, TEMP and TMP", () => {
  const parent = {
    SystemRoot: "C:\\Windows",
    TEMP: "C:\\Users\\alice\\AppData\\Local\\Temp",
    TMP: "C:\\Users\\alice\\AppData\\Local\\Temp",
    Path: "C:\\Users\\alice\\bin;C:\\Windows\\System32",
    PSModulePath: "C:\\Users\\alice\\Modules",
    USERPROFILE: "C:\\Users\\alice",
    GITHUB_TOKEN: "ghp_secret",
    HTTPS_PROXY: "http://user:pass@proxy:8080",
    NODE_OPTIONS: "--require evil.js",
  };

  it("exactly the data laid over SystemRoot, windir, TEMP and TMP; nothing else of the environment it reads", async () => {
    const fake = fakeSpawnExiting();
    await runPowerShell("'x'", { GSS_DATA: "d" }, { env: parent, spawn: fake.spawn, platform: "win32" });
    expect(fake.calls[0].options.env).toEqual({
      SystemRoot: "C:\\Windows",
      windir: "C:\\Windows",
      TEMP: parent.TEMP,
      TMP: parent.TMP,
      GSS_DATA: "d",
    });
  });

  it("TEMP and TMP only when they are set", async () => {
    const fake = fakeSpawnExiting();
    await runPowerShell("'x'", {}, { env: { SystemRoot: "C:\\Windows\\" }, spawn: fake.spawn, platform: "win32" });
    expect(fake.calls[0].options.env).toEqual({ SystemRoot: "C:\\Windows", windir: "C:\\Windows" });
    expect(powerShellEnvironment({ SYSTEMROOT: "C:\\Windows", temp: "C:\\t", TMP: "" })).toEqual({
      SystemRoot: "C:\\Windows",
      windir: "C:\\Windows",
      TEMP: "C:\\t",
    });
  });

  it("the private-folder adapter's PowerShell goes through the runner: data as the request, the minimal environment as the base", async () => {
    const seen: { request: WindowsProcessRequest; deps?: WindowsProcessDeps }[] = [];
    const check = async (request: WindowsProcessRequest, deps?: WindowsProcessDeps) => {
      seen.push({ request, deps });
      return { stdout: "kind absent\r\n", stderr: "" };
    };
    expect(await windowsPrivateFolderAdapter({ env: parent, check }).inspect("C:\\x")).toEqual({ kind: "absent" });
    expect(seen[0].request.command).toBe(POWERSHELL);
    expect(seen[0].deps?.baseEnv).toEqual({ SystemRoot: "C:\\Windows", windir: "C:\\Windows", TEMP: parent.TEMP, TMP: parent.TMP });
  });

  it("reads the process's environment when given it (the Host's), but never passes the parent's whole environment", async () => {
    vi.stubEnv("SystemRoot", "C:\\Windows");
    vi.stubEnv("TEMP", "C:\\Temp");
    vi.stubEnv("TMP", "C:\\Temp");
    vi.stubEnv("GSS_PARENT_ONLY", "must stay behind");
    vi.stubEnv("GITHUB_TOKEN", "ghp_secret");
    const fake = fakeSpawnExiting();
    await runPowerShell("'x'", { GSS_DATA: "d" }, { env: process.env, spawn: fake.spawn, platform: "win32" });
    const env = fake.calls[0].options.env!;
    expect(Object.keys(env).sort()).toEqual(["GSS_DATA", "SystemRoot", "TEMP", "TMP", "windir"]);
    expect(Object.keys(process.env).length).toBeGreaterThan(5);
  });
});

describe("failures are windowsProcessCheck's", () => {
  it("a non-zero exit throws the sanitized WindowsPrerequisiteError", async () => {
    const fake = fakeSpawnExiting(3, "", "cannot open C:\\Users\\alice\r\nAccess is denied.\r\n");
    const error = await runPowerShell("exit 3", {}, { env: { SystemRoot: "C:\\Windows" }, spawn: fake.spawn, platform: "win32" }).catch((e) => e);
    expect(isWindowsPrerequisiteError(error)).toBe(true);
    expect(error.message).toBe(WINDOWS_PROCESS_FAILED);
    expect(error.cause).toMatchObject({ status: 3, stderr: "[line suppressed]\nAccess is denied." });
  });

  it("runPowerShellForStatus gives the status and the sanitized output instead", async () => {
    const ok = fakeSpawnExiting(0, "String abc\r\n");
    expect(await runPowerShellForStatus("'x'", {}, { env: { SystemRoot: "C:\\Windows" }, spawn: ok.spawn, platform: "win32" })).toEqual({
      status: 0,
      stdout: "String abc\r\n",
      stderr: "",
    });
    const bad = fakeSpawnExiting(5, "", "Access is denied.");
    expect(await runPowerShellForStatus("'x'", {}, { env: { SystemRoot: "C:\\Windows" }, spawn: bad.spawn, platform: "win32" })).toEqual({
      status: 5,
      stdout: "",
      stderr: "Access is denied.",
    });
  });
});

describe("every script starts with the preamble (issue 24, defect 13)", () => {
  it("checks the language mode first, then asks for UTF-8 output, before the script's own lines", () => {
    const lines = powerShellScript("'x'").split("\n");
    expect(lines[0]).toBe("if ($ExecutionContext.SessionState.LanguageMode -ne 'FullLanguage') { exit 86 }");
    expect(lines[1]).toMatch(/^try \{ \[Console\]::OutputEncoding = New-Object System\.Text\.UTF8Encoding \$false \} catch \{ \}$/);
    expect(lines.at(-1)).toBe("'x'");
  });

  it("Constrained Language Mode (the preamble's exit) is one sentence that names it, for a plain run and a status run", async () => {
    for (const call of [runPowerShell, runPowerShellForStatus]) {
      const fake = fakeSpawnExiting(86, "", "");
      const error = await call("'x'", {}, { env: { SystemRoot: "C:\\Windows" }, spawn: fake.spawn, platform: "win32" }).catch((e) => e);
      expect(error).toBeInstanceOf(WindowsPowerShellRestrictedError);
      expect(error.message).toMatch(/^Windows PowerShell runs in Constrained Language Mode here \(an AppLocker or WDAC policy\), so .*\.$/);
    }
  });
});

describe("startDetachedPowerShell: cmd.exe's start, with no pipes, in its own process group", () => {
  it("windowsProcessCheck starts %SystemRoot%\\System32\\cmd.exe detached, with stdio ignored and no window, and waits only for it", async () => {
    const fake = fakeSpawnExiting(0);
    await startDetachedPowerShell(
      "'x'",
      { GSS_DATA: "C:\\a b" },
      { env: { SystemRoot: "C:\\Windows", PATH: "C:\\evil" }, spawn: fake.spawn, platform: "win32" },
    );
    const [call] = fake.calls;
    expect(call.command).toBe("C:\\Windows\\System32\\cmd.exe");
    expect(call.options).toMatchObject({ cwd: "C:\\Windows\\System32", shell: false, windowsHide: true, detached: true, stdio: "ignore" });
    expect(call.options.env).toEqual({ SystemRoot: "C:\\Windows", windir: "C:\\Windows", GSS_DATA: "C:\\a b" });
    expect(decoded(call.args)).toBe(powerShellScript("'x'"));
  });

  it("a cmd.exe that fails to start it is windowsProcessCheck's failure", async () => {
    const fake = fakeSpawnExiting(9059);
    const error = await startDetachedPowerShell("'x'", {}, { env: { SystemRoot: "C:\\Windows" }, spawn: fake.spawn, platform: "win32" }).catch((e) => e);
    expect(isWindowsPrerequisiteError(error)).toBe(true);
  });

  it("runPowerShell still pipes and waits: detached is only asked for", async () => {
    const fake = fakeSpawnExiting(0);
    await runPowerShell("'x'", {}, { env: { SystemRoot: "C:\\Windows" }, spawn: fake.spawn, platform: "win32" });
    expect(fake.calls[0].options).toMatchObject({ detached: false, stdio: ["ignore", "pipe", "pipe"] });
  });
});
