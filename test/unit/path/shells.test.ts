// The per-shell rules of the PATH entry (spec: "PATH"): the marked lines and
// the startup files pathEntryPlan can choose.
import { describe, expect, it } from "vitest";
import { fishLine, holdsLine, posixLine, profileFiles, shellFor } from "../../../src/path/shells";
import { H, LINE } from "./facts";

describe("lines", () => {
  it("sh, bash and zsh: export PATH with the marker", () => {
    expect(posixLine("/home/u/.gentle-shell/bin")).toBe('export PATH="/home/u/.gentle-shell/bin:$PATH" # gentle-shell bundled install');
  });
  it('sh quoting escapes exactly $, `, " and \\ inside double quotes', () => {
    expect(posixLine(`/h/a b'$x\`"\\ü/bin`)).toBe(`export PATH="/h/a b'\\$x\\\`\\"\\\\ü/bin:$PATH" # gentle-shell bundled install`);
  });
  it("fish: set -gx PATH, single-quoted, only ' and \\ escaped", () => {
    expect(fishLine(`/h/a b'$"\\ü/bin`)).toBe(`set -gx PATH '/h/a b\\'$"\\\\ü/bin' $PATH # gentle-shell bundled install`);
  });
  it("holdsLine wants the whole line", () => {
    expect(holdsLine(`x${LINE}\n`, LINE)).toBe(false);
    expect(holdsLine(`${LINE} extra`, LINE)).toBe(false);
    expect(holdsLine(`a\n${LINE}`, LINE)).toBe(true);
  });
});

describe("profileFiles and shellFor", () => {
  it("Linux: .zshrc, .bashrc, the fish file, nu's env.nu, PowerShell's profile, .profile", () => {
    expect(profileFiles(H, {}, "linux").map((f) => [f.shell, f.path])).toEqual([
      ["zsh", `${H}/.zshrc`],
      ["bash", `${H}/.bashrc`],
      ["fish", `${H}/.config/fish/conf.d/gentle-shell.fish`],
      ["nu", `${H}/.config/nushell/env.nu`],
      ["pwsh", `${H}/.config/powershell/profile.ps1`],
      ["sh", `${H}/.profile`],
    ]);
  });
  it("macOS with ZDOTDIR and XDG_CONFIG_HOME: the bash login files in order, .profile once", () => {
    expect(profileFiles(H, { ZDOTDIR: "/z", XDG_CONFIG_HOME: "/c" }, "darwin").map((f) => f.path)).toEqual([
      "/z/.zshrc",
      `${H}/.bash_profile`,
      `${H}/.bash_login`,
      `${H}/.profile`,
      "/c/fish/conf.d/gentle-shell.fish",
      "/c/nushell/env.nu",
      "/c/powershell/profile.ps1",
    ]);
  });
  it("macOS without XDG_CONFIG_HOME: nu's folder is under Library/Application Support, PowerShell's under ~/.config", () => {
    const files = profileFiles(H, {}, "darwin");
    expect(files.find((f) => f.shell === "nu")?.path).toBe(`${H}/Library/Application Support/nushell/env.nu`);
    expect(files.find((f) => f.shell === "pwsh")?.path).toBe(`${H}/.config/powershell/profile.ps1`);
  });
  it("a relative XDG_CONFIG_HOME is ignored, as the XDG spec says and as the fish completions' path reads it", () => {
    const fish = profileFiles(H, { XDG_CONFIG_HOME: "rel" }, "linux").find((f) => f.path.endsWith("gentle-shell.fish"));
    expect(fish?.path).toBe(`${H}/.config/fish/conf.d/gentle-shell.fish`);
  });
  it("Windows has none", () => {
    expect(profileFiles("C:/Users/u", {}, "win32")).toEqual([]);
  });
  it("shellFor reads $SHELL's name", () => {
    expect([
      shellFor({ SHELL: "/usr/bin/zsh" }),
      shellFor({ SHELL: "/bin/bash" }),
      shellFor({ SHELL: "/usr/bin/fish" }),
      shellFor({ SHELL: "/home/u/.cargo/bin/nu" }),
      shellFor({ SHELL: "/opt/homebrew/bin/pwsh" }),
      shellFor({ SHELL: "/bin/dash" }),
      shellFor({}),
    ]).toEqual(["zsh", "bash", "fish", "nu", "pwsh", "sh", "sh"]);
  });
});
