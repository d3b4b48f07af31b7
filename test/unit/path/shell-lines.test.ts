/**
 * Each shell's own syntax (src/path/shell-lines.ts): a hostile path quoted
 * for nu comes back unchanged from a real nu; nu's lookup answers a file's
 * path, an alias's kind and nothing, between its markers; PowerShell's quotes
 * double every single quote PowerShell knows (its typographic ones too),
 * which only a pwsh could prove and none is here (ci.yml's linux job has one:
 * test/integration/path-shells.test.ts and test/e2e/doctor-shells.test.ts run
 * its line and lookup there).
 */
import { spawnSync } from "node:child_process";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "pathe";
import { describe, expect, it } from "vitest";
import { nuLine, nuLookup, nuQuote, PATH_MARKER, pwshLine, pwshLookup, pwshQuote } from "../../../src/path/shell-lines";
import { reloadCommand } from "../../../src/path/sentences";
import { requires, shellProgram } from "../../support/capabilities";
import { scratchDir } from "../../support/scratch";

const HOSTILE = [`a b`, `it's`, `say "hi"`, `$HOME and $(ls)`, "back`tick", `back\\slash`, `ünï cödé`, `semi;colon | pipe`, `(paren) {brace}`];

function nu(command: string, env: Record<string, string> = {}) {
  const r = spawnSync(shellProgram("nu"), ["-n", "-c", command], {
    encoding: "utf8",
    timeout: 20_000,
    env: { PATH: "/usr/bin:/bin", HOME: "/nonexistent", ...env },
  });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

describe("nu", () => {
  it.for(HOSTILE)("a quoted %j is that text to a real nu", (text, ctx) => {
    requires(ctx, "nu");
    const r = nu(`print ${nuQuote(text)}`);
    expect(r.stderr).toBe("");
    expect(r.stdout).toBe(`${text}\n`);
  });

  it("the PATH line puts the folder first, whether PATH is still a string or already a list", (ctx) => {
    requires(ctx, "nu");
    const bin = '/opt/my "tools" $x/bin';
    expect(nuLine(bin)).toBe(`$env.PATH = ($env.PATH | split row (char esep) | prepend ${nuQuote(bin)}) ${PATH_MARKER}`);
    // One statement a line, as in env.nu: the line's marker is a comment to the end of its line.
    const asString = nu(`$env.PATH = "/usr/bin:/bin"\n${nuLine(bin)}\nprint ($env.PATH | to json -r)`);
    expect(JSON.parse(asString.stdout)).toEqual([bin, "/usr/bin", "/bin"]);
    const asList = nu(`$env.PATH = ["/usr/bin" "/bin"]\n${nuLine(bin)}\nprint ($env.PATH | to json -r)`);
    expect(JSON.parse(asList.stdout)).toEqual([bin, "/usr/bin", "/bin"]);
  });

  it("the lookup prints a file's path, an alias's kind, or nothing, between its markers", (ctx) => {
    requires(ctx, "nu");
    const dir = scratchDir("nu lookup-");
    mkdirSync(join(dir, "bin"));
    writeFileSync(join(dir, "bin", "gentle-shell"), "#!/bin/sh\n", { mode: 0o755 });
    const ask = (prefix: string, path: string) => nu(`${prefix}${nuLookup("gentle-shell", "B7", "E7")}`, { PATH: path }).stdout;
    expect(ask("", `${join(dir, "bin")}:/usr/bin:/bin`)).toBe(`B7\n${join(dir, "bin", "gentle-shell")}\nE7\n`);
    expect(ask("alias gentle-shell = echo mine; ", "/usr/bin:/bin")).toBe("B7\nalias\nE7\n");
    expect(ask("", "/usr/bin:/bin")).toBe("B7\n\nE7\n");
    // Our completions' extern, sourced by a user, is not taken for the file that runs.
    writeFileSync(join(dir, "completions.nu"), 'extern "gentle-shell" [\n  --fix\n  ...rest: string\n]\n');
    expect(ask(`source ${nuQuote(join(dir, "completions.nu"))}; `, `${join(dir, "bin")}:/usr/bin:/bin`)).toBe(`B7\n${join(dir, "bin", "gentle-shell")}\nE7\n`);
  });
});

describe("the reload command each shell is told", () => {
  it("quotes an odd path as that shell quotes, and leaves a plain ~/ path as it is", () => {
    const home = "/home/ada";
    expect(reloadCommand("bash", "/home/ada/.bashrc", home)).toBe(". ~/.bashrc");
    expect(reloadCommand("sh", "/home/o'neil/.profile", home)).toBe(`. '/home/o'\\''neil/.profile'`);
    expect(reloadCommand("nu", "/home/o'neil/.config/nushell/env.nu", home)).toBe(`source "/home/o'neil/.config/nushell/env.nu"`);
    expect(reloadCommand("pwsh", "/home/o'neil/.config/powershell/profile.ps1", home)).toBe(". '/home/o''neil/.config/powershell/profile.ps1'");
  });

  it("nu's loads the file in a real nu", (ctx) => {
    requires(ctx, "nu");
    const dir = scratchDir("nu reload-");
    const file = join(dir, "it's env.nu");
    writeFileSync(file, "$env.RELOADED = 'yes'\n");
    expect(nu(`${reloadCommand("nu", file, "/nonexistent")}; print $env.RELOADED`).stdout).toBe("yes\n");
  });
});

describe("PowerShell", () => {
  it("single quotes: each quote doubled, the typographic ones PowerShell also reads as quotes too; nothing else touched", () => {
    expect(pwshQuote("it's")).toBe("'it''s'");
    expect(pwshQuote("\u2018a\u2019 \u201ab\u201b")).toBe("'\u2018\u2018a\u2019\u2019 \u201a\u201ab\u201b\u201b'");
    expect(pwshQuote('$HOME "x" `y` \\z')).toBe("'$HOME \"x\" `y` \\z'");
  });

  it("the PATH line prepends with the platform's separator; the lookup asks Get-Command for the first match", () => {
    expect(pwshLine("/home/o'neil/.gentle-shell/bin")).toBe(
      `$env:PATH = '/home/o''neil/.gentle-shell/bin' + [IO.Path]::PathSeparator + $env:PATH ${PATH_MARKER}`,
    );
    const lookup = pwshLookup("gentle-shell", "B7", "E7");
    expect(lookup.startsWith("Write-Output B7; ")).toBe(true);
    expect(lookup.endsWith("; Write-Output E7")).toBe(true);
    expect(lookup).toContain("Get-Command -Name gentle-shell -ErrorAction Ignore | Select-Object -First 1");
  });
});
