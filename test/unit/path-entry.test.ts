// Pure decisions of the PATH entry (spec: "PATH"; the shadowingCommand table
// in "Migration from a global install"). Facts are written by hand here; the
// io side that gathers them is tested in test/unit/path/ and in real
// shells in test/integration/path-shells.test.ts.
import { describe, expect, it } from "vitest";
import {
  checkReceipt,
  fishLine,
  holdsLine,
  modeAllowsWrite,
  pathEntryPlan,
  posixLine,
  profileFiles,
  receiptJson,
  shadowingCommand,
  shellFor,
  userPathAppend,
  userPathHolds,
  userPathRemove,
  type FileFacts,
  type PathEntryPlan,
  type PathFacts,
  type PathReceipt,
  type ReceiptContext,
} from "../../src/core/path-entry";
import type { Platform } from "../../src/core/layout";

const H = "/home/u";
const BIN = `${H}/.gentle-shell/bin`;
const LAUNCHER = `${BIN}/gentle-shell`;
const LINE = `export PATH="${BIN}:$PATH" # gentle-shell bundled install`;
const FISH = `set -gx PATH '${BIN}' $PATH # gentle-shell bundled install`;

type Fact = Partial<FileFacts> & Pick<FileFacts, "node">;
const file = (content: string, more: Partial<FileFacts> = {}): Fact => ({ node: "file", writable: true, content, ...more });
const absent = (writable = true): Fact => ({ node: "absent", writable, content: null });
const link = (linkTarget: string, content: string | null = null): Fact => ({ node: "link", linkTarget, content, writable: false });

function facts(
  o: { platform?: Platform; env?: Record<string, string>; files?: Record<string, Fact>; userPath?: PathFacts["userPath"]; bin?: string } = {},
): PathFacts {
  const files: Record<string, FileFacts> = {};
  for (const [path, f] of Object.entries(o.files ?? {})) {
    files[path] = { path, linkedFolder: null, writable: false, content: null, ...f };
  }
  const bin = o.bin ?? BIN;
  return {
    platform: o.platform ?? "linux",
    home: H,
    env: { PATH: "/usr/bin:/bin", ...o.env },
    bin,
    launcher: `${bin}/gentle-shell`,
    files,
    userPath: o.userPath,
  };
}

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

describe("user Path values", () => {
  it("append keeps every other entry as written and adds one ';'", () => {
    expect(userPathAppend("%USERPROFILE%\\go\\bin;C:\\x", "C:\\b")).toBe("%USERPROFILE%\\go\\bin;C:\\x;C:\\b");
    expect(userPathAppend("C:\\x;", "C:\\b")).toBe("C:\\x;C:\\b");
    expect(userPathAppend("", "C:\\b")).toBe("C:\\b");
  });
  it("remove drops only our entry, in any case and with a trailing backslash", () => {
    expect(userPathRemove("%A%\\x;c:\\B\\;C:\\y", "C:\\b")).toBe("%A%\\x;C:\\y");
    expect(userPathRemove(userPathAppend("%A%;C:\\y", "C:\\b"), "C:\\b")).toBe("%A%;C:\\y");
    expect(userPathRemove("C:\\b", "C:\\b")).toBe("");
  });
  it("holds compares case-insensitively, ignores trailing backslashes and empty entries", () => {
    expect(userPathHolds(";;C:\\B\\\\", "c:\\b")).toBe(true);
    expect(userPathHolds("C:\\bin2", "C:\\bin")).toBe(false);
  });
});

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
  it("Linux: .zshrc, .bashrc, the fish file, .profile", () => {
    expect(profileFiles(H, {}, "linux").map((f) => [f.shell, f.path, f.style])).toEqual([
      ["zsh", `${H}/.zshrc`, "posix"],
      ["bash", `${H}/.bashrc`, "posix"],
      ["fish", `${H}/.config/fish/conf.d/gentle-shell.fish`, "fish"],
      ["sh", `${H}/.profile`, "posix"],
    ]);
  });
  it("macOS with ZDOTDIR and XDG_CONFIG_HOME: the bash login files in order, .profile once", () => {
    expect(profileFiles(H, { ZDOTDIR: "/z", XDG_CONFIG_HOME: "/c" }, "darwin").map((f) => f.path)).toEqual([
      "/z/.zshrc",
      `${H}/.bash_profile`,
      `${H}/.bash_login`,
      `${H}/.profile`,
      "/c/fish/conf.d/gentle-shell.fish",
    ]);
  });
  it("Windows has none", () => {
    expect(profileFiles("C:/Users/u", {}, "win32")).toEqual([]);
  });
  it("shellFor reads $SHELL's name", () => {
    expect([
      shellFor({ SHELL: "/usr/bin/zsh" }),
      shellFor({ SHELL: "/bin/bash" }),
      shellFor({ SHELL: "/usr/bin/fish" }),
      shellFor({ SHELL: "/bin/dash" }),
      shellFor({}),
    ]).toEqual(["zsh", "bash", "fish", "sh", "sh"]);
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

describe("receipts: only what this prefix writes", () => {
  const ctx: ReceiptContext = { home: H, env: {}, platform: "linux", bin: BIN, launcher: LAUNCHER };
  const profile = (path: string, line: string): Extract<PathReceipt, { kind: "profile" }> => ({
    schema: 1,
    kind: "profile",
    applied: true,
    path,
    line,
    create: false,
    separator: "\n",
  });
  const roundTrip = (r: PathReceipt, c: ReceiptContext = ctx) => checkReceipt(receiptJson(r), c);

  it("the file holds schema, kind and the kind's fields only", () => {
    expect(JSON.parse(receiptJson(profile(`${H}/.bashrc`, LINE)))).toEqual({
      schema: 1,
      kind: "profile",
      path: `${H}/.bashrc`,
      line: LINE,
      create: false,
      separator: "\n",
    });
  });

  it.each<[string, PathReceipt, ReceiptContext?]>([
    ["a line in ~/.bashrc", profile(`${H}/.bashrc`, LINE)],
    ["a line in ~/.zshrc", profile(`${H}/.zshrc`, LINE)],
    ["a line in ~/.profile, created", { ...profile(`${H}/.profile`, LINE), create: true, separator: "" }],
    ["the fish line in the fish file", profile(`${H}/.config/fish/conf.d/gentle-shell.fish`, FISH)],
    ["a line in $ZDOTDIR/.zshrc", profile("/z/.zshrc", LINE), { ...ctx, env: { ZDOTDIR: "/z" } }],
    ["a line in a macOS login file", profile(`${H}/.bash_login`, LINE), { ...ctx, platform: "darwin" }],
    ["our link", { schema: 1, kind: "link", applied: true, path: `${H}/.local/bin/gentle-shell`, target: LAUNCHER }],
    [
      "our user Path entry",
      { schema: 1, kind: "registry", applied: true, key: "HKCU\\Environment", name: "Path", entry: "C:\\P\\bin" },
      { home: "C:/Users/u", env: {}, platform: "win32", bin: "C:/P/bin", launcher: "C:/P/bin/gentle-shell.cmd" },
    ],
  ])("round trip: %s", (_n, receipt, c) => {
    expect(roundTrip(receipt, c)).toEqual({ status: "valid", receipt });
  });

  it.each<[string, PathReceipt, ReceiptContext?]>([
    ["a file pathEntryPlan never chooses (~/.zshenv)", profile(`${H}/.zshenv`, LINE)],
    ["the fish line outside the fish file", profile(`${H}/.bashrc`, FISH)],
    ["the sh line in the fish file", profile(`${H}/.config/fish/conf.d/gentle-shell.fish`, LINE)],
    ["another bin's line", profile(`${H}/.bashrc`, posixLine("/opt/x/bin"))],
    ["~/.bashrc on macOS", profile(`${H}/.bashrc`, LINE), { ...ctx, platform: "darwin" }],
    ["~/.zshrc when ZDOTDIR now points elsewhere", profile(`${H}/.zshrc`, LINE), { ...ctx, env: { ZDOTDIR: "/z" } }],
    ["a link elsewhere", { schema: 1, kind: "link", applied: true, path: `${H}/bin/gentle-shell`, target: LAUNCHER }],
    ["a link to another target", { schema: 1, kind: "link", applied: true, path: `${H}/.local/bin/gentle-shell`, target: "/usr/bin/gentle-shell" }],
    ["a registry receipt outside Windows", { schema: 1, kind: "registry", applied: true, key: "HKCU\\Environment", name: "Path", entry: BIN }],
  ])("refused, and named for manual removal: %s", (_n, receipt, c) => {
    const check = roundTrip(receipt, c);
    expect(check.status).toBe("invalid");
    expect(check.status === "invalid" && check.manual).toBeTruthy();
  });

  it("names the file of a refused line receipt with ~", () => {
    const check = roundTrip(profile(`${H}/.zshenv`, LINE));
    expect(check).toMatchObject({ status: "invalid", manual: `the line ${JSON.stringify(LINE)} in ~/.zshenv` });
  });

  it.each([
    ["not JSON", "{"],
    ["an array", "[]"],
    ["schema 2", JSON.stringify({ schema: 2, kind: "link", path: `${H}/.local/bin/gentle-shell`, target: LAUNCHER })],
    ["an unknown kind", JSON.stringify({ schema: 1, kind: "alias", path: "x" })],
    ["a missing field", JSON.stringify({ schema: 1, kind: "profile", path: `${H}/.bashrc`, line: LINE, create: false })],
    ["an extra field", JSON.stringify({ schema: 1, kind: "link", path: `${H}/.local/bin/gentle-shell`, target: LAUNCHER, applied: false })],
    ["a bad separator", JSON.stringify({ schema: 1, kind: "profile", path: `${H}/.bashrc`, line: LINE, create: false, separator: "\r\n" })],
    ["create as text", JSON.stringify({ schema: 1, kind: "profile", path: `${H}/.bashrc`, line: LINE, create: "no", separator: "" })],
  ])("malformed: %s", (_n, text) => {
    expect(checkReceipt(text, ctx).status).toBe("invalid");
  });

  it("registry: another key, or another folder, is refused", () => {
    const win: ReceiptContext = { home: "C:/Users/u", env: {}, platform: "win32", bin: "C:/P/bin", launcher: "C:/P/bin/gentle-shell.cmd" };
    const r = { schema: 1, kind: "registry", applied: true, key: "HKLM\\Environment", name: "Path", entry: "C:\\P\\bin" } as const;
    expect(roundTrip(r, win).status).toBe("invalid");
    expect(roundTrip({ ...r, key: "HKCU\\Environment", entry: "C:\\Q\\bin" }, win).status).toBe("invalid");
    expect(roundTrip({ ...r, key: "HKCU\\Environment", entry: "c:\\p\\BIN\\" }, win).status).toBe("valid");
  });
});

describe("shadowingCommand: the spec's table", () => {
  const OLD = "/home/u/.local/share/pnpm";
  const commands =
    (...files: string[]) =>
    (f: string) =>
      files.includes(f);
  const base = { platform: "linux" as const, home: H, env: {}, bin: BIN };
  const line = (shell: "zsh" | "bash" | "fish" | "sh"): PathEntryPlan => ({
    kind: "line",
    shell,
    file: "f",
    line: shell === "fish" ? FISH : LINE,
    create: false,
  });

  it.each(["zsh", "bash", "sh"] as const)("a %s line puts our bin first: ours wins over an old gentle-shell on PATH", (shell) => {
    const r = shadowingCommand(line(shell), { ...base, path: `${OLD}:/usr/bin`, isCommand: commands(`${OLD}/gentle-shell`) });
    expect(r).toEqual({ position: "first", runs: `${BIN}/gentle-shell`, ours: true });
  });

  it("the fish conf.d line counts last: an old gentle-shell anywhere on PATH wins, and is named", () => {
    const r = shadowingCommand(line("fish"), { ...base, path: `/usr/bin:${OLD}`, isCommand: commands(`${OLD}/gentle-shell`) });
    expect(r.position).toBe("last");
    expect(r.ours).toBe(false);
    expect(r.runs).toBe(`${OLD}/gentle-shell`);
    expect(r.shadowedBy?.message).toContain("~/.local/share/pnpm/gentle-shell");
    expect(r.shadowedBy?.message).toContain("config.fish");
  });

  it("the fish line wins when no other gentle-shell is on PATH", () => {
    expect(shadowingCommand(line("fish"), { ...base, path: "/usr/bin", isCommand: commands("/usr/bin/node") })).toEqual({
      position: "last",
      runs: `${BIN}/gentle-shell`,
      ours: true,
    });
  });

  it("the Windows user Path entry counts last, after the machine Path; PATHEXT names are found", () => {
    const npm = "C:\\Users\\u\\AppData\\Roaming\\npm";
    const plan: PathEntryPlan = { kind: "registry", key: "HKCU\\Environment", name: "Path", entry: "C:\\P\\bin" };
    const r = shadowingCommand(plan, {
      platform: "win32",
      home: "C:/Users/u",
      env: { PATHEXT: ".COM;.EXE;.CMD" },
      bin: "C:/P/bin",
      path: `C:\\Windows;${npm}`,
      isCommand: (f) => f.toLowerCase() === "c:/users/u/appdata/roaming/npm/gentle-shell.cmd",
    });
    expect(r).toMatchObject({ position: "last", ours: false });
    expect(r.shadowedBy?.message).toContain("machine Path");
  });

  it("the Windows entry already first in PATH: ours, where it already is", () => {
    const plan: PathEntryPlan = { kind: "none", existing: { kind: "registry", key: "HKCU\\Environment", name: "Path", entry: "C:\\P\\bin" } };
    const r = shadowingCommand(plan, { platform: "win32", home: "C:/Users/u", env: {}, bin: "C:/P/bin", path: "c:\\p\\bin\\;C:\\npm", isCommand: () => true });
    expect(r).toMatchObject({ position: "existing", ours: true });
  });

  it("the ~/.local/bin link sits where ~/.local/bin is: an old one earlier on PATH wins", () => {
    const plan: PathEntryPlan = { kind: "link", path: `${H}/.local/bin/gentle-shell`, target: LAUNCHER };
    const earlier = shadowingCommand(plan, { ...base, path: `${OLD}:${H}/.local/bin`, isCommand: commands(`${OLD}/gentle-shell`) });
    expect(earlier).toMatchObject({ position: "existing", ours: false, runs: `${OLD}/gentle-shell` });
    const later = shadowingCommand(plan, { ...base, path: `${H}/.local/bin:${OLD}`, isCommand: commands(`${OLD}/gentle-shell`) });
    expect(later).toMatchObject({ position: "existing", ours: true, runs: `${H}/.local/bin/gentle-shell` });
  });

  it("no change: our bin stays where it already is on PATH", () => {
    const plan: PathEntryPlan = { kind: "none", existing: { kind: "line", shell: "zsh", file: "f", line: LINE } };
    const r = shadowingCommand(plan, { ...base, path: `${OLD}:${BIN}`, isCommand: commands(`${OLD}/gentle-shell`) });
    expect(r).toMatchObject({ position: "existing", ours: false, runs: `${OLD}/gentle-shell` });
  });

  it("a line already in the file but not yet on this PATH: placed by its shell's rule", () => {
    const plan: PathEntryPlan = { kind: "none", existing: { kind: "line", shell: "zsh", file: "f", line: LINE } };
    expect(shadowingCommand(plan, { ...base, path: OLD, isCommand: commands(`${OLD}/gentle-shell`) })).toMatchObject({ position: "first", ours: true });
  });

  it("a manual plan changes nothing: the old one keeps running", () => {
    const plan: PathEntryPlan = { kind: "manual", shell: "bash", file: "f", line: LINE, reason: "link" };
    expect(shadowingCommand(plan, { ...base, path: OLD, isCommand: commands(`${OLD}/gentle-shell`) })).toMatchObject({
      position: "unchanged",
      ours: false,
      runs: `${OLD}/gentle-shell`,
    });
  });
});
