/**
 * The Windows user Path adapter (spec: "PATH", "Registry. The registry
 * change goes through an injected adapter."): reads HKCU\Environment Path
 * raw, writes it back with its type, and broadcasts the change, through
 * Windows PowerShell scripts with data in the environment only. The runner
 * is injected by the caller (`runWindowsPowerShell` in src/io/powershell.ts
 * for the real one).
 */
import type { PowerShellResult, PowerShellRunner } from "../io/powershell";
import { USER_PATH_KEY, USER_PATH_NAME } from "./shells";
import type { UserPathValue } from "./user-path";

/** The Windows user Path (HKCU\Environment, value Path). */
export interface RegistryAdapter {
  /** The raw value, never expanded, with its type; null when there is no such value. */
  readUserPath(): Promise<UserPathValue | null>;
  /** Writes the value with the type given (REG_EXPAND_SZ stays REG_EXPAND_SZ). */
  writeUserPath(value: UserPathValue): Promise<void>;
  /** WM_SETTINGCHANGE "Environment", so Explorer gives new terminals the new Path. */
  broadcastEnvironmentChange(): Promise<void>;
}

const PS_READ = [
  "$ErrorActionPreference = 'Stop'",
  "$k = [Microsoft.Win32.Registry]::CurrentUser.OpenSubKey('Environment')",
  "if ($null -eq $k) { 'absent'; exit 0 }",
  // DoNotExpandEnvironmentNames: the raw text, %VAR% as written.
  "$v = $k.GetValue('Path', $null, [Microsoft.Win32.RegistryValueOptions]::DoNotExpandEnvironmentNames)",
  "if ($null -eq $v) { 'absent'; exit 0 }",
  "$t = $k.GetValueKind('Path')",
  "'' + $t + ' ' + [Convert]::ToBase64String([Text.Encoding]::UTF8.GetBytes([string]$v))",
].join("\n");

const PS_WRITE = [
  "$ErrorActionPreference = 'Stop'",
  "$v = [Text.Encoding]::UTF8.GetString([Convert]::FromBase64String($env:GENTLE_SHELL_PATH_VALUE))",
  "$kind = [Microsoft.Win32.RegistryValueKind]::ExpandString",
  "if ($env:GENTLE_SHELL_PATH_TYPE -eq 'REG_SZ') { $kind = [Microsoft.Win32.RegistryValueKind]::String }",
  "$k = [Microsoft.Win32.Registry]::CurrentUser.CreateSubKey('Environment')",
  "$k.SetValue('Path', $v, $kind)",
  "$k.Close()",
].join("\n");

const PS_BROADCAST = [
  "$ErrorActionPreference = 'Stop'",
  "$sig = '[DllImport(\"user32.dll\", CharSet = CharSet.Unicode, SetLastError = true)] public static extern System.IntPtr SendMessageTimeout(System.IntPtr hWnd, uint msg, System.UIntPtr wParam, string lParam, uint flags, uint timeout, out System.UIntPtr result);'",
  "Add-Type -Namespace GentleShellSetup -Name User32 -MemberDefinition $sig",
  "$r = [System.UIntPtr]::Zero",
  // HWND_BROADCAST, WM_SETTINGCHANGE, SMTO_ABORTIFHUNG, 1 s per window: a few hung windows stay well inside the runner's 15 s.
  "[void][GentleShellSetup.User32]::SendMessageTimeout([System.IntPtr]0xffff, 0x1A, [System.UIntPtr]::Zero, 'Environment', 2, 1000, [ref]$r)",
].join("\n");

function failed(what: string, r: PowerShellResult): Error {
  return new Error(`${what} failed (exit ${r.status}): ${r.stderr.trim().slice(0, 500)}`);
}

/** The real adapter (Windows only), on the runner given: reads raw, keeps the value's type, broadcasts. */
export function windowsRegistry(run: PowerShellRunner): RegistryAdapter {
  return {
    async readUserPath() {
      const r = await run(PS_READ, {});
      if (r.status !== 0) throw failed(`reading ${USER_PATH_KEY}\\${USER_PATH_NAME}`, r);
      const out = r.stdout.trim();
      if (out === "absent") return null;
      const m = /^(String|ExpandString)(?: ([A-Za-z0-9+/=]*))?$/.exec(out);
      if (!m) throw new Error(`${USER_PATH_KEY}\\${USER_PATH_NAME} is not text (${out.split(" ")[0]}); it was not changed`);
      return { type: m[1] === "String" ? "REG_SZ" : "REG_EXPAND_SZ", value: Buffer.from(m[2] ?? "", "base64").toString("utf8") };
    },
    async writeUserPath(value) {
      const r = await run(PS_WRITE, {
        GENTLE_SHELL_PATH_VALUE: Buffer.from(value.value, "utf8").toString("base64"),
        GENTLE_SHELL_PATH_TYPE: value.type,
      });
      if (r.status !== 0) throw failed(`writing ${USER_PATH_KEY}\\${USER_PATH_NAME}`, r);
    },
    async broadcastEnvironmentChange() {
      const r = await run(PS_BROADCAST, {});
      if (r.status !== 0) throw failed("announcing the new Path", r);
    },
  };
}

/** The registry adapter the edge bound (src/cli on Windows); there is no default real one. */
export function requireRegistry(registry: RegistryAdapter | undefined): RegistryAdapter {
  if (!registry) throw new Error("no Windows registry adapter was given for the user Path");
  return registry;
}
