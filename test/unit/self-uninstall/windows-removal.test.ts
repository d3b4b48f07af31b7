/**
 * The delayed removal on Windows (spec: "Self-uninstall", Windows), on any
 * host: the plan scheduleWindowsRemoval receives (its order, files and empty
 * folders only, never a recursive removal), its paths as environment data,
 * and a script that holds none of them. The script itself runs in the
 * Windows job (test/windows/self-uninstall-removal.test.ts).
 */
import { describe, expect, it } from "vitest";
import { prefixLayout } from "../../../src/core/layout";
import { productionPins } from "../../../src/pins/production";
import {
  WINDOWS_REMOVAL_SCRIPT,
  windowsRemovalData,
  windowsRemovalPlan,
  windowsRemovalScheduler,
  type WindowsRemoval,
} from "../../../src/commands/self-uninstall/windows-removal";
import { CMD_MARKER } from "../../../src/install/launcher";
import { powerShellScript, startDetachedPowerShell } from "../../../src/io/powershell";
import type { WindowsProcessRequest } from "../../../src/io/windows-process/check";

// Every character cmd.exe or PowerShell would read as syntax, and a letter outside ASCII.
const HOME = "C:/Users/Ana María & 100% (x) !bang^, $(calc) 'q'";
const layout = prefixLayout({
  home: HOME,
  platform: "win32",
  pins: productionPins,
  windowsPrefix: `${HOME}/AppData/Local/gentle-shell`,
});
const marker = {
  path: `${layout.prefix}/.gentle-shell-bundle`,
  holds: "This folder is a Gentle Shell bundled install. Remove it with: gentle-shell self-uninstall",
};
const launcher = { holds: CMD_MARKER };
const rel = (entries: WindowsRemoval[]) => entries.map((e) => `${e.kind} ${e.path === layout.prefix ? "<prefix>" : e.path.slice(layout.prefix.length + 1)}`);

describe("windowsRemovalPlan", () => {
  it("node.exe, the launcher, the marker, then each folder above them deepest first, then the prefix", () => {
    const entries = windowsRemovalPlan(layout, { launcher, marker, prefixMayGo: true }).entries;
    expect(rel(entries)).toEqual([
      `file runtime/node-${productionPins.node.version}/node.exe`,
      "file bin/gentle-shell.cmd",
      "file .gentle-shell-bundle",
      `emptyFolder runtime/node-${productionPins.node.version}`,
      "emptyFolder runtime",
      "emptyFolder bin",
      "emptyFolder <prefix>",
    ]);
    // The launcher and the marker go only while they still hold our lines.
    expect(entries[1].holds).toBe(CMD_MARKER);
    expect(entries[2].holds).toBe(marker.holds);
    expect(entries[0].holds).toBeUndefined();
  });

  it("keeps the prefix when something was kept, and the launcher and the marker when the launcher is not ours", () => {
    expect(rel(windowsRemovalPlan(layout, { launcher, marker, prefixMayGo: false }).entries)).not.toContain("emptyFolder <prefix>");
    const notOurs = windowsRemovalPlan(layout, { launcher: null, marker, prefixMayGo: true }).entries;
    expect(rel(notOurs)).toEqual([
      `file runtime/node-${productionPins.node.version}/node.exe`,
      `emptyFolder runtime/node-${productionPins.node.version}`,
      "emptyFolder runtime",
      "emptyFolder bin",
    ]);
  });
});

describe("the script and its data", () => {
  const entries = windowsRemovalPlan(layout, { launcher, marker, prefixMayGo: true }).entries;
  const data = windowsRemovalData({ prefix: `${layout.prefix}/`, entries }, { pid: 4321, startedMs: 1_700_000_000_123.7 });

  it("every path is environment data, with backslashes, in the plan's order", () => {
    expect(data.GENTLE_SHELL_REMOVE_PID).toBe("4321");
    expect(data.GENTLE_SHELL_REMOVE_SINCE).toBe("1700000000123");
    expect(data.GENTLE_SHELL_REMOVE_COUNT).toBe(String(entries.length));
    // The prefix, up to which (and with which) no folder above an entry may be a link.
    expect(data.GENTLE_SHELL_REMOVE_ROOT).toBe(layout.prefix.replace(/\//g, "\\"));
    entries.forEach((e, i) => {
      expect(data[`GENTLE_SHELL_REMOVE_${i}_PATH`]).toBe(e.path.replace(/\//g, "\\"));
      expect(data[`GENTLE_SHELL_REMOVE_${i}_KIND`]).toBe(e.kind);
      expect(data[`GENTLE_SHELL_REMOVE_${i}_HOLDS`]).toBe(e.holds);
    });
    expect(Object.keys(data)).toHaveLength(4 + entries.length * 2 + 2);
  });

  it("the script holds no path, no name of ours and no user text: only the variables' names", () => {
    for (const e of entries) {
      expect(WINDOWS_REMOVAL_SCRIPT).not.toContain(e.path);
      expect(WINDOWS_REMOVAL_SCRIPT).not.toContain(e.path.replace(/\//g, "\\"));
    }
    for (const text of ["Ana", "María", "gentle-shell", "node.exe", ".cmd", "bundle", "AppData", "C:", CMD_MARKER, marker.holds]) {
      expect(WINDOWS_REMOVAL_SCRIPT).not.toContain(text);
    }
    expect(WINDOWS_REMOVAL_SCRIPT).toContain("GENTLE_SHELL_REMOVE_");
  });

  it("never removes recursively: files one by one, folders only with Delete($q,$false) when empty", () => {
    expect(WINDOWS_REMOVAL_SCRIPT).not.toMatch(/-Recurse|Remove-Item|rmdir|rd \/s|,\s*\$true\)/i);
    expect(WINDOWS_REMOVAL_SCRIPT.match(/\[IO\.Directory\]::Delete\([^)]*\)/g)).toEqual(["[IO.Directory]::Delete($q,$false)"]);
    expect(WINDOWS_REMOVAL_SCRIPT).toContain("GetFileSystemEntries($q)).Count -eq 0");
    // A link (reparse point) is never deleted as a file nor entered as a folder.
    expect(WINDOWS_REMOVAL_SCRIPT).toContain("if(($a -band ($R -bor $D)) -ne 0){exit 4}");
    expect(WINDOWS_REMOVAL_SCRIPT).toContain("($a -band $R) -eq 0 -and ($a -band $D) -ne 0");
    // Nor anything below a link or a junction, up to and with the prefix: a file there stops it, a folder stays.
    expect(WINDOWS_REMOVAL_SCRIPT).toContain("if(L $q){if($k -eq 'file'){exit 7};continue}");
  });
});

describe("windowsRemovalScheduler through the real detached runner", () => {
  it("cmd.exe starts a hidden powershell.exe with the encoded script; the paths reach it only as its environment", async () => {
    const requests: WindowsProcessRequest[] = [];
    const bases: Readonly<Record<string, string | undefined>>[] = [];
    const schedule = windowsRemovalScheduler(
      (script, d) =>
        startDetachedPowerShell(script, d, {
          env: { SystemRoot: "C:\\Windows", TEMP: "C:\\Temp", PATH: "C:\\evil", GITHUB_TOKEN: "secret" },
          check: async (request, deps) => {
            requests.push(request);
            bases.push(deps?.baseEnv ?? {});
            return { stdout: "", stderr: "" };
          },
        }),
      { pid: 4321, startedMs: 1 },
    );
    await schedule({ prefix: layout.prefix, entries: entries() });
    const [req] = requests;
    expect(req.command).toBe("C:\\Windows\\System32\\cmd.exe");
    expect(req.detached).toBe(true);
    expect(req.args!.slice(0, 6)).toEqual(["/d", "/v:off", "/c", "start", "/min", "C:\\Windows\\System32\\WindowsPowerShell\\v1.0\\powershell.exe"]);
    expect(req.args!.slice(6, -1)).toEqual([
      "-NoLogo",
      "-NoProfile",
      "-NonInteractive",
      "-WindowStyle",
      "Hidden",
      "-ExecutionPolicy",
      "Bypass",
      "-EncodedCommand",
    ]);
    expect(Buffer.from(req.args!.at(-1)!, "base64").toString("utf16le")).toBe(powerShellScript(WINDOWS_REMOVAL_SCRIPT));
    // Nothing cmd.exe would read as syntax on its line, and no path.
    const line = req.args!.join(" ");
    expect(line).not.toMatch(/[%!^&|<>"()]/);
    expect(line).not.toContain("Users");
    expect(line.length + req.command.length + 1).toBeLessThan(8191);
    expect(req.env).toEqual(windowsRemovalData({ prefix: layout.prefix, entries: entries() }, { pid: 4321, startedMs: 1 }));
    // The parent's environment does not come along: SystemRoot, windir, TEMP only.
    expect(bases[0]).toEqual({ SystemRoot: "C:\\Windows", windir: "C:\\Windows", TEMP: "C:\\Temp" });
  });

  it("a SystemRoot cmd.exe would read as syntax starts nothing", async () => {
    let started = 0;
    const check = async () => {
      started++;
      return { stdout: "", stderr: "" };
    };
    for (const SystemRoot of ["C:\\Win dows", "C:\\W%PATH%", "C:\\W&calc", "C:\\W^x", "\\\\server\\Windows"]) {
      await expect(startDetachedPowerShell(WINDOWS_REMOVAL_SCRIPT, {}, { env: { SystemRoot }, check })).rejects.toThrow(/SystemRoot/);
    }
    expect(started).toBe(0);
  });
});

function entries(): WindowsRemoval[] {
  return windowsRemovalPlan(layout, { launcher, marker, prefixMayGo: true }).entries;
}
