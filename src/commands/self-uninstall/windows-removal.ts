/**
 * Self-uninstall's delayed removal on Windows (spec: "Self-uninstall",
 * Windows). The running node.exe, the .cmd launcher and the marker cannot be
 * removed by this process, so a hidden Windows PowerShell removes them after
 * it exits (scheduleWindowsRemoval).
 *
 *   windowsRemovalPlan(layout, { launcher, marker, prefixMayGo }) → { prefix, entries }
 *     Pure: node.exe, the launcher (when the plan found it ours), the marker,
 *     then each folder above them inside the prefix, deepest first, and the
 *     prefix when it may go. A file goes only while it is a plain file (no
 *     link, no folder) and, when `holds` is given, still has that line; the
 *     script stops at the first file it cannot remove, so the marker stays
 *     while anything is left at the other two paths and a failed removal can
 *     be retried. A folder goes only when it is a real folder and empty;
 *     otherwise it stays and the script goes on. Nothing is removed
 *     recursively, and nothing through a link: a file below a folder (up to
 *     and with the prefix) that is a link or a junction stops the script, a
 *     folder there stays.
 *   windowsRemovalData(plan, waitFor) → the script's environment
 *     GENTLE_SHELL_REMOVE_PID, _SINCE (its start, in ms since the epoch, so
 *     a process that later got the same id is not waited for), _ROOT (the
 *     prefix), _COUNT, and
 *     per entry _<i>_KIND, _<i>_PATH and _<i>_HOLDS. The paths are data only:
 *     WINDOWS_REMOVAL_SCRIPT holds none.
 *   windowsRemovalScheduler(start, waitFor?) → ScheduleWindowsRemoval
 *     The adapter the engine binds: `start` runs the fixed script with its
 *     data (startDetachedPowerShell in src/io/powershell.ts).
 */
import { dirname } from "../../core/native-path";
import { isWithin, type Layout } from "../../core/layout";

/** One thing the delayed removal deletes, in order. */
export interface WindowsRemoval {
  path: string;
  kind: "file" | "emptyFolder";
  /** A file goes only while one of its lines is exactly this. */
  holds?: string;
}

/** The ordered entries, all inside `prefix` (or the prefix itself). */
export interface WindowsRemovalPlan {
  prefix: string;
  entries: WindowsRemoval[];
}

export type ScheduleWindowsRemoval = (plan: WindowsRemovalPlan) => Promise<void>;

/** The process to wait for: its id and when it started. */
export interface WaitFor {
  pid: number;
  startedMs: number;
}

export interface WindowsRemovalFacts {
  /** The .cmd launcher carries our marker line (else it is kept, and so is the marker). */
  launcher: { holds: string } | null;
  /** The bundle marker's path and its line. */
  marker: { path: string; holds: string };
  /** Nothing was kept, so the prefix goes once it is empty. */
  prefixMayGo: boolean;
}

export function windowsRemovalPlan(layout: Layout, facts: WindowsRemovalFacts): WindowsRemovalPlan {
  const files: WindowsRemoval[] = [{ path: layout.node, kind: "file" }];
  if (facts.launcher) {
    files.push({ path: layout.launcher, kind: "file", holds: facts.launcher.holds });
    files.push({ path: facts.marker.path, kind: "file", holds: facts.marker.holds });
  }
  const folders: string[] = [];
  for (const file of [layout.node, layout.launcher]) {
    for (let dir = dirname(file); dir !== layout.prefix && isWithin(layout.prefix, dir); dir = dirname(dir)) {
      if (!folders.includes(dir)) folders.push(dir);
    }
  }
  const out: WindowsRemoval[] = [...files, ...folders.map((path) => ({ path, kind: "emptyFolder" as const }))];
  if (facts.prefixMayGo && facts.launcher) out.push({ path: layout.prefix, kind: "emptyFolder" });
  return { prefix: layout.prefix, entries: out };
}

const PREFIX = "GENTLE_SHELL_REMOVE_";

/** Windows paths with backslashes, as PowerShell's .NET calls read them. */
const windowsPath = (path: string) => path.replace(/\//g, "\\");

export function windowsRemovalData({ prefix, entries }: WindowsRemovalPlan, waitFor: WaitFor): Record<string, string> {
  const data: Record<string, string> = {
    [`${PREFIX}PID`]: String(waitFor.pid),
    [`${PREFIX}SINCE`]: String(Math.floor(waitFor.startedMs)),
    [`${PREFIX}ROOT`]: windowsPath(prefix).replace(/\\+$/, ""),
    [`${PREFIX}COUNT`]: String(entries.length),
  };
  entries.forEach((entry, i) => {
    data[`${PREFIX}${i}_KIND`] = entry.kind;
    data[`${PREFIX}${i}_PATH`] = windowsPath(entry.path);
    if (entry.holds !== undefined) data[`${PREFIX}${i}_HOLDS`] = entry.holds;
  });
  return data;
}

/**
 * Windows PowerShell 5.1 and later; .NET calls only, so no module has to load.
 * Exit codes (nobody reads them; they name the step for a person): 3 the
 * process did not exit within ten minutes, 4 a file's path holds a link or a
 * folder, 5 a file no longer holds its line, 6 a file would not go, 7 a file
 * lies below a link or a junction.
 */
export const WINDOWS_REMOVAL_SCRIPT = [
  "$ErrorActionPreference='Stop'",
  `function G($n){[Environment]::GetEnvironmentVariable('${PREFIX}'+$n)}`,
  // A path's own attributes (a link's, never its target's) as a number, or $null when nothing is there.
  "function A($f){try{[int][IO.File]::GetAttributes($f)}catch{$x=$_.Exception;while($x.InnerException){$x=$x.InnerException};if($x -is [IO.FileNotFoundException] -or $x -is [IO.DirectoryNotFoundException]){$null}else{throw}}}",
  "$p=$null",
  "try{$p=[Diagnostics.Process]::GetProcessById([int](G 'PID'))}catch{}",
  // Another process that later got the same id is not waited for.
  "try{if($p -and $p.StartTime.ToUniversalTime() -gt [DateTimeOffset]::FromUnixTimeMilliseconds([long](G 'SINCE')).UtcDateTime.AddSeconds(5)){$p=$null}}catch{}",
  "if($p -and -not $p.WaitForExit(600000)){exit 3}",
  // The launcher's cmd.exe reads its last line once node.exe has exited.
  "[Threading.Thread]::Sleep(500)",
  // FILE_ATTRIBUTE_REPARSE_POINT (a link or a junction) and FILE_ATTRIBUTE_DIRECTORY.
  "$R=0x400;$D=0x10",
  // Is any folder above it, up to and with the prefix, a link or a junction?
  "$T=G 'ROOT'",
  "function L($f){$u=[IO.Path]::GetDirectoryName($f);while($u -and $u.Length -ge $T.Length){$b=A $u;if($null -ne $b -and ($b -band $R) -ne 0){return $true};$u=[IO.Path]::GetDirectoryName($u)};$false}",
  "for($i=0;$i -lt [int](G 'COUNT');$i++){",
  '$q=G "${i}_PATH";$k=G "${i}_KIND";$a=A $q',
  "if(L $q){if($k -eq 'file'){exit 7};continue}",
  "if($null -eq $a){continue}",
  "if($k -eq 'file'){",
  "if(($a -band ($R -bor $D)) -ne 0){exit 4}",
  '$h=G "${i}_HOLDS"',
  "if($h -and -not (([IO.File]::ReadAllText($q) -split '\\r?\\n') -ccontains $h)){exit 5}",
  "for($j=0;$j -lt 40 -and $null -ne (A $q);$j++){try{[IO.File]::Delete($q)}catch{[Threading.Thread]::Sleep(250)}}",
  "if($null -ne (A $q)){exit 6}",
  "}elseif($k -eq 'emptyFolder' -and ($a -band $R) -eq 0 -and ($a -band $D) -ne 0 -and @([IO.Directory]::GetFileSystemEntries($q)).Count -eq 0){",
  "try{[IO.Directory]::Delete($q,$false)}catch{}",
  "}",
  "}",
].join("\n");

/** This process: the delayed removal waits for it to exit. */
export function thisProcess(): WaitFor {
  return { pid: process.pid, startedMs: performance.timeOrigin };
}

/** The adapter: the fixed script, with the plan and the process to wait for as its environment. */
export function windowsRemovalScheduler(
  start: (script: string, data: Record<string, string>) => Promise<void>,
  waitFor: WaitFor = thisProcess(),
): ScheduleWindowsRemoval {
  return (plan) => start(WINDOWS_REMOVAL_SCRIPT, windowsRemovalData(plan, waitFor));
}
