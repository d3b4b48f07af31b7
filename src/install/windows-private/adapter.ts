/**
 * The real Windows private-folder adapter (spec: "Layout", Windows paragraph):
 * the system side of WindowsPrivateFolderAdapter, for ./rule.ts. Windows only;
 * exercised for real by test/windows in the Windows CI job, and on Linux with
 * a fake windowsProcessCheck by test/unit/windows-private/adapter.test.ts.
 *
 *   windowsPrivateFolderAdapter({ env?, check? }) → WindowsPrivateFolderAdapter
 *
 *   - whoami.exe from %SystemRoot%\System32 (env: the Host's)
 *     through windowsProcessCheck, and Windows PowerShell through the one
 *     runner, runPowerShell (src/io/powershell.ts: absolute path, the same
 *     rules, a minimal environment); `check` stands in for windowsProcessCheck
 *     in tests. Each path is passed as environment data
 *     (GENTLE_SHELL_PRIVATE_PATH), never as script text.
 *   - The folder and the marker through node:fs: one folder without its
 *     parents, the marker read with lstat (at most 4096 bytes) and written
 *     with an exclusive create.
 */
import { errnoCode } from "../../core/errno";
import { promises as fs } from "node:fs";
import { type ProcessCheck, runPowerShell, windowsSystemRoot } from "../../io/powershell";
import { type WindowsProcessRequest, windowsProcessCheck } from "../../io/windows-process/check";
import { SID_TEXT, type WindowsAce, type WindowsFolderState, WindowsPrivateFolderError, type WindowsPrivateFolderAdapter } from "./rule";

type Env = Readonly<Record<string, string | undefined>>;

/** windowsProcessCheck's shape (src/io/powershell.ts); tests pass a recorder. */
export type { ProcessCheck };

export interface WindowsAdapterOptions {
  /** Where SystemRoot is read, and the environment a check starts from (the Host's). */
  env: Env;
  check?: ProcessCheck;
}

/** A script's one input: the path, as environment data. */
export const PATH_VARIABLE = "GENTLE_SHELL_PRIVATE_PATH";
export const SIDS_VARIABLE = "GENTLE_SHELL_PRIVATE_SIDS";

const PS_PRELUDE = [
  "$ErrorActionPreference = 'Stop'",
  "function Get-Base($e) { while ($null -ne $e.InnerException) { $e = $e.InnerException }; $e }",
  `$p = $env:${PATH_VARIABLE}`,
];

export const PS_INSPECT = [
  ...PS_PRELUDE,
  "try { $a = [System.IO.File]::GetAttributes($p) } catch {",
  "  $b = Get-Base $_.Exception",
  "  if ($b -is [System.IO.FileNotFoundException] -or $b -is [System.IO.DirectoryNotFoundException]) { 'kind absent'; exit 0 }",
  "  if ($b -is [System.UnauthorizedAccessException]) { 'kind unreadable'; exit 0 }",
  "  throw",
  "}",
  "if (($a -band [System.IO.FileAttributes]::ReparsePoint) -ne 0) { 'kind link'; exit 0 }",
  "if (($a -band [System.IO.FileAttributes]::Directory) -eq 0) { 'kind file'; exit 0 }",
  "try { $acl = [System.IO.Directory]::GetAccessControl($p, [System.Security.AccessControl.AccessControlSections]'Owner, Access') } catch {",
  "  $b = Get-Base $_.Exception",
  "  if ($b -is [System.UnauthorizedAccessException] -or $b -is [System.Security.Principal.IdentityNotMappedException]) { 'kind unreadable'; exit 0 }",
  "  throw",
  "}",
  "'kind directory'",
  "'owner ' + $acl.GetOwner([System.Security.Principal.SecurityIdentifier]).Value",
  "if ($acl.AreAccessRulesProtected) { 'protected 1' } else { 'protected 0' }",
  "foreach ($r in $acl.GetAccessRules($true, $true, [System.Security.Principal.SecurityIdentifier])) {",
  "  $t = 'deny'; if ($r.AccessControlType -eq [System.Security.AccessControl.AccessControlType]::Allow) { $t = 'allow' }",
  "  $io = 0; if (($r.PropagationFlags -band [System.Security.AccessControl.PropagationFlags]::InheritOnly) -ne 0) { $io = 1 }",
  "  $inh = 0; if ($r.IsInherited) { $inh = 1 }",
  "  'ace ' + $t + ' ' + [int]$r.FileSystemRights + ' ' + $io + ' ' + $inh + ' ' + $r.IdentityReference.Value",
  "}",
].join("\n");

export const PS_SET_PROTECTED_DACL = [
  ...PS_PRELUDE,
  "$a = [System.IO.File]::GetAttributes($p)",
  "if (($a -band [System.IO.FileAttributes]::ReparsePoint) -ne 0 -or ($a -band [System.IO.FileAttributes]::Directory) -eq 0) { throw 'not a real folder' }",
  "$sec = New-Object System.Security.AccessControl.DirectorySecurity",
  "$sec.SetAccessRuleProtection($true, $false)",
  "$inherit = [System.Security.AccessControl.InheritanceFlags]'ContainerInherit, ObjectInherit'",
  "$none = [System.Security.AccessControl.PropagationFlags]::None",
  "$full = [System.Security.AccessControl.FileSystemRights]::FullControl",
  "$allow = [System.Security.AccessControl.AccessControlType]::Allow",
  `foreach ($s in ($env:${SIDS_VARIABLE} -split ',')) {`,
  "  $id = New-Object System.Security.Principal.SecurityIdentifier($s)",
  "  $sec.AddAccessRule((New-Object System.Security.AccessControl.FileSystemAccessRule($id, $full, $inherit, $none, $allow)))",
  "}",
  // Only the changed section (the DACL, protected) is written; the owner stays.
  "[System.IO.Directory]::SetAccessControl($p, $sec)",
].join("\n");

function systemRoot(env: Env): string {
  const root = windowsSystemRoot(env);
  if (root === null) throw new WindowsPrivateFolderError("%SystemRoot% is not an absolute folder; Windows tools cannot be found. Nothing was changed.");
  return root;
}

/** Parses PS_INSPECT's output. */
export function parseInspect(stdout: string): WindowsFolderState {
  const lines = stdout
    .split(/\r?\n/)
    .map((l) => l.trim())
    .filter(Boolean);
  const kind = /^kind (absent|link|file|unreadable|directory)$/.exec(lines[0] ?? "")?.[1];
  if (!kind) throw new WindowsPrivateFolderError("Reading folder permissions gave an unexpected answer.");
  if (kind !== "directory") return { kind } as WindowsFolderState;
  let owner: string | undefined;
  let isProtected: boolean | undefined;
  const aces: WindowsAce[] = [];
  for (const line of lines.slice(1)) {
    const ownerLine = /^owner (S-1-\d+(?:-\d+)+)$/.exec(line);
    const protectedLine = /^protected ([01])$/.exec(line);
    const ace = /^ace (allow|deny) (-?\d+) ([01]) ([01]) (S-1-\d+(?:-\d+)+)$/.exec(line);
    if (ownerLine) owner = ownerLine[1];
    else if (protectedLine) isProtected = protectedLine[1] === "1";
    else if (ace) {
      aces.push({ allow: ace[1] === "allow", rights: Number(ace[2]) >>> 0, inheritOnly: ace[3] === "1", inherited: ace[4] === "1", sid: ace[5] });
    } else throw new WindowsPrivateFolderError("Reading folder permissions gave an unexpected answer.");
  }
  if (owner === undefined || isProtected === undefined) throw new WindowsPrivateFolderError("Reading folder permissions gave an unexpected answer.");
  return { kind: "directory", owner, protected: isProtected, aces };
}

/** Parses `whoami /user /fo csv /nh`: "domain\user","S-1-5-21-...". */
export function parseWhoami(stdout: string): string {
  const m = /"(S-1-\d+(?:-\d+)+)"\s*$/.exec(stdout.trim());
  if (!m) throw new WindowsPrivateFolderError("The current Windows account could not be identified.");
  return m[1];
}

export function windowsPrivateFolderAdapter(options: WindowsAdapterOptions): WindowsPrivateFolderAdapter {
  const { env } = options;
  const check = options.check ?? ((request: WindowsProcessRequest) => windowsProcessCheck(request, { baseEnv: env }));
  // The one PowerShell runner: its absolute path, windowsProcessCheck's rules, a minimal environment.
  const powershell = async (script: string, data: Record<string, string>) => {
    systemRoot(env);
    return runPowerShell(script, data, { env, check: options.check });
  };
  return {
    async currentUserSid() {
      const out = await check({ command: `${systemRoot(env)}\\System32\\whoami.exe`, args: ["/user", "/fo", "csv", "/nh"] });
      return parseWhoami(out.stdout);
    },
    async inspect(path) {
      const out = await powershell(PS_INSPECT, { [PATH_VARIABLE]: path });
      return parseInspect(out.stdout);
    },
    async createFolder(path) {
      try {
        await fs.mkdir(path);
      } catch (error) {
        if (errnoCode(error) !== "EEXIST") throw error;
      }
    },
    async setProtectedDacl(path, sids) {
      if (sids.length === 0 || !sids.every((s) => SID_TEXT.test(s))) throw new WindowsPrivateFolderError("Refusing to set permissions without valid accounts.");
      await powershell(PS_SET_PROTECTED_DACL, { [PATH_VARIABLE]: path, [SIDS_VARIABLE]: sids.join(",") });
    },
    async readMarker(path) {
      let stat: Awaited<ReturnType<typeof fs.lstat>>;
      try {
        stat = await fs.lstat(path);
      } catch (error) {
        if (errnoCode(error) === "ENOENT") return { kind: "absent" };
        throw error;
      }
      if (!stat.isFile() || stat.size > 4096) return { kind: "other" };
      return { kind: "file", text: await fs.readFile(path, "utf8") };
    },
    async writeMarker(path, text) {
      await fs.writeFile(path, text, { flag: "wx" });
    },
  };
}
