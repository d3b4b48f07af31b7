// pathEntryPlan, the single PATH change (spec: "PATH"), and writability by
// mode bits. Facts are written by hand here; the io side that gathers them is
// tested in probe.test.ts and in real shells in
// test/integration/path-shells.test.ts.
import { describe, expect, it } from "vitest";
import { modeAllowsWrite, pathEntryPlan } from "../../../src/path/entry-plan";
import { posixLine } from "../../../src/path/shells";
import { absent, facts, file, FISH, H, LAUNCHER, LINE, link, type Fact } from "./facts";

describe("pathEntryPlan: Symlink", () => {
  it("~/.local/bin on PATH and ~/.local/bin/gentle-shell free: a link to the launcher", () => {
    const plan = pathEntryPlan(
      facts({ env: { PATH: `/usr/bin:${H}/.local/bin:/bin`, SHELL: "/bin/bash" }, files: { [`${H}/.local/bin/gentle-shell`]: absent() } }),
    );
    expect(plan).toEqual({ kind: "link", path: `${H}/.local/bin/gentle-shell`, target: LAUNCHER });
  });

  it("~/.local/bin written with a trailing slash on PATH still counts", () => {
    const plan = pathEntryPlan(facts({ env: { PATH: `${H}/.local/bin/:/usr/bin` }, files: { [`${H}/.local/bin/gentle-shell`]: absent() } }));
    expect(plan.kind).toBe("link");
  });

  it("the name taken by another file: the profile line instead", () => {
    const plan = pathEntryPlan(
      facts({
        env: { PATH: `${H}/.local/bin:/usr/bin`, SHELL: "/bin/bash" },
        files: { [`${H}/.local/bin/gentle-shell`]: file("#!/bin/sh\n"), [`${H}/.bashrc`]: file("") },
      }),
    );
    expect(plan).toMatchObject({ kind: "line", file: `${H}/.bashrc` });
  });

  it("the name taken by a link elsewhere (an old install): the profile line instead", () => {
    const plan = pathEntryPlan(
      facts({
        env: { PATH: `${H}/.local/bin`, SHELL: "/bin/bash" },
        files: { [`${H}/.local/bin/gentle-shell`]: link("/usr/lib/node_modules/gentle-pi/bin/x"), [`${H}/.bashrc`]: absent() },
      }),
    );
    expect(plan).toMatchObject({ kind: "line", file: `${H}/.bashrc`, create: true });
  });

  it("our link already there: no plan", () => {
    const plan = pathEntryPlan(facts({ env: { PATH: `${H}/.local/bin` }, files: { [`${H}/.local/bin/gentle-shell`]: link(LAUNCHER) } }));
    expect(plan).toEqual({ kind: "none", existing: { kind: "link", path: `${H}/.local/bin/gentle-shell`, target: LAUNCHER } });
  });

  it("~/.local/bin not on PATH: no link even when the folder is free", () => {
    const plan = pathEntryPlan(facts({ env: { SHELL: "/bin/bash" }, files: { [`${H}/.local/bin/gentle-shell`]: absent(), [`${H}/.bashrc`]: file("x\n") } }));
    expect(plan.kind).toBe("line");
  });

  it("~/.local/bin under a linked folder: the profile line instead of a link", () => {
    const plan = pathEntryPlan(
      facts({
        env: { PATH: `${H}/.local/bin`, SHELL: "/bin/bash" },
        files: { [`${H}/.local/bin/gentle-shell`]: { ...absent(), linkedFolder: `${H}/.local` }, [`${H}/.bashrc`]: file("") },
      }),
    );
    expect(plan.kind).toBe("line");
  });
});

describe("pathEntryPlan: Profile line, the file the user's shell reads", () => {
  it("zsh: $ZDOTDIR/.zshrc when ZDOTDIR is set", () => {
    const plan = pathEntryPlan(
      facts({ env: { SHELL: "/usr/bin/zsh", ZDOTDIR: `${H}/.config/zsh` }, files: { [`${H}/.config/zsh/.zshrc`]: file("a\n"), [`${H}/.zshrc`]: file("b\n") } }),
    );
    expect(plan).toEqual({ kind: "line", shell: "zsh", file: `${H}/.config/zsh/.zshrc`, line: LINE, create: false });
  });

  it("zsh: ~/.zshrc without ZDOTDIR, created when absent", () => {
    const plan = pathEntryPlan(facts({ env: { SHELL: "/bin/zsh" }, files: { [`${H}/.zshrc`]: absent() } }));
    expect(plan).toEqual({ kind: "line", shell: "zsh", file: `${H}/.zshrc`, line: LINE, create: true });
  });

  it.each([
    ["only ~/.bash_profile", [".bash_profile"], ".bash_profile"],
    ["only ~/.bash_login", [".bash_login"], ".bash_login"],
    ["only ~/.profile", [".profile"], ".profile"],
    ["~/.bash_login and ~/.profile", [".bash_login", ".profile"], ".bash_login"],
    ["all three", [".bash_profile", ".bash_login", ".profile"], ".bash_profile"],
  ])("bash on macOS reads the first login file that exists (%s)", (_name, existing, chosen) => {
    const files: Record<string, Fact> = {};
    for (const f of [".bash_profile", ".bash_login", ".profile"]) files[`${H}/${f}`] = existing.includes(f) ? file("x\n") : absent();
    files[`${H}/.bashrc`] = file("rc\n");
    const plan = pathEntryPlan(facts({ platform: "darwin", env: { SHELL: "/bin/bash" }, files }));
    expect(plan).toEqual({ kind: "line", shell: "bash", file: `${H}/${chosen}`, line: LINE, create: false });
  });

  it("bash on macOS: ~/.bash_profile is created only when none of the login files exists", () => {
    const files = { [`${H}/.bash_profile`]: absent(), [`${H}/.bash_login`]: absent(), [`${H}/.profile`]: absent(), [`${H}/.bashrc`]: file("") };
    expect(pathEntryPlan(facts({ platform: "darwin", env: { SHELL: "/opt/homebrew/bin/bash" }, files }))).toEqual({
      kind: "line",
      shell: "bash",
      file: `${H}/.bash_profile`,
      line: LINE,
      create: true,
    });
  });

  it("bash on macOS: a linked ~/.profile counts as existing (and so is manual, not hidden by a new .bash_profile)", () => {
    const files = { [`${H}/.bash_profile`]: absent(), [`${H}/.bash_login`]: absent(), [`${H}/.profile`]: link("/dots/profile", "x\n") };
    expect(pathEntryPlan(facts({ platform: "darwin", env: { SHELL: "/bin/bash" }, files }))).toMatchObject({
      kind: "manual",
      file: `${H}/.profile`,
      reason: "link",
    });
  });

  it("bash on Linux: ~/.bashrc, even when ~/.bash_profile exists", () => {
    const plan = pathEntryPlan(facts({ env: { SHELL: "/bin/bash" }, files: { [`${H}/.bashrc`]: file("x"), [`${H}/.bash_profile`]: file("y\n") } }));
    expect(plan).toEqual({ kind: "line", shell: "bash", file: `${H}/.bashrc`, line: LINE, create: false });
  });

  it("fish: our own conf.d/gentle-shell.fish under XDG_CONFIG_HOME", () => {
    const path = "/cfg/fish/conf.d/gentle-shell.fish";
    const plan = pathEntryPlan(facts({ env: { SHELL: "/usr/bin/fish", XDG_CONFIG_HOME: "/cfg" }, files: { [path]: absent() } }));
    expect(plan).toEqual({ kind: "line", shell: "fish", file: path, line: FISH, create: true });
  });

  it("fish: conf.d under ~/.config without XDG_CONFIG_HOME", () => {
    const path = `${H}/.config/fish/conf.d/gentle-shell.fish`;
    expect(pathEntryPlan(facts({ env: { SHELL: "/usr/local/bin/fish" }, files: { [path]: absent() } }))).toMatchObject({
      kind: "line",
      file: path,
      line: FISH,
    });
  });

  it.each([["/bin/sh"], ["/bin/dash"], ["/bin/ksh"], [""]])("any other shell (%j): ~/.profile", (shell) => {
    const env: Record<string, string> = shell ? { SHELL: shell } : {};
    expect(pathEntryPlan(facts({ env, files: { [`${H}/.profile`]: file("p\n") } }))).toEqual({
      kind: "line",
      shell: "sh",
      file: `${H}/.profile`,
      line: LINE,
      create: false,
    });
  });
});

describe("pathEntryPlan: Manual plans carry the exact line and write nothing", () => {
  const bash = { SHELL: "/bin/bash" };
  it.each<[string, Fact, string]>([
    ["a symlinked profile (stow, chezmoi, home-manager)", link("/nix/store/abc-bashrc", "x\n"), "link"],
    ["a read-only profile", file("x\n", { writable: false }), "read-only"],
    ["a profile that is not a regular file", { node: "other" }, "not-a-file"],
    ["a profile reached through a linked folder", file("x\n", { linkedFolder: `${H}/dots` }), "linked-folder"],
    ["an absent profile reached through a linked folder", { ...absent(), linkedFolder: `${H}/dots` }, "linked-folder"],
    ["an absent profile whose folder is not writable", absent(false), "folder-not-writable"],
    ["an unreadable profile", file("", { content: null }), "unreadable"],
  ])("%s", (_name, fact, reason) => {
    expect(pathEntryPlan(facts({ env: bash, files: { [`${H}/.bashrc`]: fact } }))).toEqual({
      kind: "manual",
      shell: "bash",
      file: `${H}/.bashrc`,
      line: LINE,
      reason,
    });
  });
});

describe("pathEntryPlan: no plan when the line is already there", () => {
  it("in the file", () => {
    expect(pathEntryPlan(facts({ env: { SHELL: "/bin/bash" }, files: { [`${H}/.bashrc`]: file(`a\n${LINE}\nb\n`) } }))).toEqual({
      kind: "none",
      existing: { kind: "line", shell: "bash", file: `${H}/.bashrc`, line: LINE },
    });
  });
  it("even through a symlink", () => {
    expect(pathEntryPlan(facts({ env: { SHELL: "/bin/bash" }, files: { [`${H}/.bashrc`]: link("/dots/bashrc", `${LINE}\n`) } })).kind).toBe("none");
  });
  it("even through a linked folder, and in a read-only file", () => {
    const zshrc = `${H}/dots/.zshrc`;
    expect(
      pathEntryPlan(facts({ env: { SHELL: "/bin/zsh", ZDOTDIR: `${H}/dots` }, files: { [zshrc]: file(LINE, { linkedFolder: `${H}/dots`, writable: false }) } }))
        .kind,
    ).toBe("none");
  });
  it("in a file with CRLF line ends", () => {
    expect(pathEntryPlan(facts({ env: { SHELL: "/bin/bash" }, files: { [`${H}/.bashrc`]: file(`a\r\n${LINE}\r\n`) } })).kind).toBe("none");
  });
  it("but not a marked line for another install folder, nor our line commented out", () => {
    const other = posixLine("/opt/other/bin");
    const plan = pathEntryPlan(facts({ env: { SHELL: "/bin/bash" }, files: { [`${H}/.bashrc`]: file(`${other}\n# ${LINE}\n`) } }));
    expect(plan).toMatchObject({ kind: "line", file: `${H}/.bashrc` });
  });
});

describe("pathEntryPlan: impossible bins", () => {
  it("a ':' in the install folder cannot be on a POSIX PATH", () => {
    expect(pathEntryPlan(facts({ bin: "/home/a:b/.gentle-shell/bin", env: { SHELL: "/bin/bash" }, files: { [`${H}/.bashrc`]: file("") } })).kind).toBe(
      "impossible",
    );
  });
  it("a newline neither", () => {
    expect(pathEntryPlan(facts({ bin: "/home/a\nb/bin", env: { SHELL: "/bin/zsh" }, files: { [`${H}/.zshrc`]: file("") } })).kind).toBe("impossible");
  });
  it("a ';' cannot be in a Windows Path entry", () => {
    expect(pathEntryPlan(facts({ platform: "win32", bin: "C:/a;b/bin", userPath: { value: "", type: "REG_EXPAND_SZ" } })).kind).toBe("impossible");
  });
});

describe("pathEntryPlan: Registry (Windows)", () => {
  const WBIN = "C:/Users/u/AppData/Local/gentle-shell/bin";
  const ENTRY = "C:\\Users\\u\\AppData\\Local\\gentle-shell\\bin";
  it("the bin entry in the HKCU user Path", () => {
    expect(pathEntryPlan(facts({ platform: "win32", bin: WBIN, userPath: { value: "%USERPROFILE%\\bin", type: "REG_EXPAND_SZ" } }))).toEqual({
      kind: "registry",
      key: "HKCU\\Environment",
      name: "Path",
      entry: ENTRY,
    });
  });
  it("also when the user Path value does not exist", () => {
    expect(pathEntryPlan(facts({ platform: "win32", bin: WBIN, userPath: null })).kind).toBe("registry");
  });
  it("no plan when the entry is there, compared case-insensitively and without a trailing backslash", () => {
    const plan = pathEntryPlan(
      facts({ platform: "win32", bin: WBIN, userPath: { value: "C:\\Tools;c:\\users\\U\\appdata\\local\\GENTLE-SHELL\\bin\\", type: "REG_SZ" } }),
    );
    expect(plan).toEqual({ kind: "none", existing: { kind: "registry", key: "HKCU\\Environment", name: "Path", entry: ENTRY } });
  });
  it("%VAR% is never expanded: %LOCALAPPDATA%\\gentle-shell\\bin is not taken for our entry", () => {
    expect(pathEntryPlan(facts({ platform: "win32", bin: WBIN, userPath: { value: "%LOCALAPPDATA%\\gentle-shell\\bin", type: "REG_EXPAND_SZ" } })).kind).toBe(
      "registry",
    );
  });
});

describe("writable is judged by mode bits, for root too", () => {
  it("root and a 0444 file of its own: not writable", () => {
    expect(modeAllowsWrite({ mode: 0o100444, uid: 0, gid: 0 }, { uid: 0, gids: [0] })).toBe(false);
  });
  it("root and a 0644 file of its own: writable", () => {
    expect(modeAllowsWrite({ mode: 0o100644, uid: 0, gid: 0 }, { uid: 0, gids: [0] })).toBe(true);
  });
  it("another user's 0644 file: not writable, even for root", () => {
    expect(modeAllowsWrite({ mode: 0o100644, uid: 1000, gid: 1000 }, { uid: 0, gids: [0] })).toBe(false);
  });
  it("group-writable for a member, world-writable for anyone", () => {
    expect(modeAllowsWrite({ mode: 0o100664, uid: 1, gid: 50 }, { uid: 2, gids: [50] })).toBe(true);
    expect(modeAllowsWrite({ mode: 0o100664, uid: 1, gid: 50 }, { uid: 2, gids: [51] })).toBe(false);
    expect(modeAllowsWrite({ mode: 0o100666, uid: 1, gid: 50 }, { uid: 2, gids: [51] })).toBe(true);
  });
  it("the owner's bits decide for the owner, even if the group may write", () => {
    expect(modeAllowsWrite({ mode: 0o100464, uid: 7, gid: 7 }, { uid: 7, gids: [7] })).toBe(false);
  });
});
