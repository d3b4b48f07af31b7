/**
 * Where `install --completions` writes the scripts and what self-uninstall
 * takes back (issue 42, src/install/completions.ts): each shell's own place,
 * recorded with its hash; a file already there that is not ours is left as it
 * is; removal takes exactly the recorded files still as written, then the
 * folders the install made when they are empty, and nothing a record names
 * elsewhere.
 */
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "pathe";
import { describe, expect, it } from "vitest";
import { prefixLayout } from "../../../src/core/layout";
import {
  type CompletionScripts,
  completionPath,
  completionShell,
  completionsReceiptPath,
  installCompletions,
  recordedCompletionFiles,
  removeCompletions,
} from "../../../src/install/completions";
import { zshFpathLine } from "../../../src/path/shells";
import { pwshHomeQuote } from "../../../src/path/shell-lines";
import { completionsStep } from "../../../src/install/completions";
import type { PathStepOutcome } from "../../../src/path/step";
import { buildPins } from "../../../src/pins";
import { scratchDir } from "../../support/scratch";

const scripts: CompletionScripts = (shell) => [
  { command: "gentle-shell", text: `# ${shell} gentle-shell\n` },
  { command: "gentle-shell-setup", text: `# ${shell} gentle-shell-setup\n` },
];

function home() {
  const dir = join(scratchDir("completion-files"), "home");
  mkdirSync(dir, { recursive: true });
  const layout = prefixLayout({ home: dir, platform: "linux", pins: buildPins() });
  mkdirSync(layout.prefix, { recursive: true });
  return layout;
}

describe("install --completions", () => {
  it("writes each shell's scripts where that shell reads them, XDG variables first", () => {
    const layout = home();
    const h = layout.home;
    expect(completionPath("bash", "gentle-shell", layout, {})).toBe(join(h, ".local/share/bash-completion/completions/gentle-shell"));
    expect(completionPath("bash", "gentle-shell", layout, { XDG_DATA_HOME: "/xdg/data" })).toBe("/xdg/data/bash-completion/completions/gentle-shell");
    expect(completionPath("bash", "gentle-shell", layout, { BASH_COMPLETION_USER_DIR: "/bc", XDG_DATA_HOME: "/xdg" })).toBe("/bc/completions/gentle-shell");
    // A relative XDG value does not count (XDG Base Directory).
    expect(completionPath("fish", "gentle-shell-setup", layout, { XDG_CONFIG_HOME: "rel" })).toBe(join(h, ".config/fish/completions/gentle-shell-setup.fish"));
    expect(completionPath("zsh", "gentle-shell", layout, {})).toBe(join(layout.prefix, "completions/zsh/_gentle-shell"));
    // nu: its autoload folder, under nu's config folder (Library/Application Support on macOS); PowerShell: the prefix.
    expect(completionPath("nu", "gentle-shell", layout, {})).toBe(join(h, ".config/nushell/autoload/gentle-shell-completions.nu"));
    expect(completionPath("nu", "gentle-shell", layout, { XDG_CONFIG_HOME: "/xdg" })).toBe("/xdg/nushell/autoload/gentle-shell-completions.nu");
    const mac = prefixLayout({ home: h, platform: "darwin", pins: buildPins() });
    expect(completionPath("nu", "gentle-shell-setup", mac, {})).toBe(join(h, "Library/Application Support/nushell/autoload/gentle-shell-setup-completions.nu"));
    expect(completionPath("pwsh", "gentle-shell", layout, {})).toBe(join(layout.prefix, "completions/powershell/gentle-shell.ps1"));
    expect(completionShell(null, { SHELL: "/usr/local/bin/nu" })).toBe("nu");
    expect(completionShell("pwsh", {})).toBe("pwsh");
    expect(completionShell("fish", {})).toBe("fish");
    expect(completionShell(null, { SHELL: "/usr/bin/zsh" })).toBe("zsh");
    expect(completionShell("sh", { SHELL: "/bin/bash" })).toBeNull();
  });

  it("records what it wrote, leaves a file that is not ours, and self-uninstall takes back exactly its own", () => {
    const layout = home();
    const env = {};
    const foreign = completionPath("fish", "gentle-shell-setup", layout, env);
    mkdirSync(join(foreign, ".."), { recursive: true });
    writeFileSync(foreign, "# the user's own\n");
    const fish = installCompletions(layout, env, "fish", scripts);
    expect(fish.written).toEqual([completionPath("fish", "gentle-shell", layout, env)]);
    expect(fish.foreign).toEqual([foreign]);
    const bash = installCompletions(layout, env, "bash", scripts);
    expect(bash.written).toHaveLength(2);
    // Again (a second install): ours and unchanged, so written again; the foreign file still left.
    expect(installCompletions(layout, env, "fish", scripts).foreign).toEqual([foreign]);
    const bashSetup = completionPath("bash", "gentle-shell-setup", layout, env);
    expect(readFileSync(bashSetup, "utf8")).toBe("# bash gentle-shell-setup\n");
    expect(recordedCompletionFiles(layout, env).sort()).toEqual([...bash.written, ...fish.written].sort());

    // The user edits one of ours: it is theirs now, and stays.
    writeFileSync(bashSetup, "# edited\n");
    const removed = removeCompletions(layout, env);
    expect(removed.removed.sort()).toEqual([completionPath("bash", "gentle-shell", layout, env), ...fish.written].sort());
    expect(removed.kept).toEqual([{ path: bashSetup, why: "it was changed after the install wrote it" }]);
    expect(readFileSync(foreign, "utf8")).toBe("# the user's own\n");
    expect(readFileSync(bashSetup, "utf8")).toBe("# edited\n");
    // The folders the install made go when empty; the one holding the user's file and the edited one stay.
    expect(existsSync(join(layout.home, ".local/share/bash-completion/completions"))).toBe(true);
    expect(readdirSync(join(layout.home, ".config/fish/completions"))).toEqual(["gentle-shell-setup.fish"]);
  });

  it("removes the folders it made when nothing else is in them, up to the home", () => {
    const layout = home();
    installCompletions(layout, {}, "bash", scripts);
    expect(removeCompletions(layout, {}).removed).toHaveLength(2);
    expect(readdirSync(layout.home).sort()).toEqual([".gentle-shell"]);
  });

  it("never touches a file a record names outside the places it writes", () => {
    const layout = home();
    const victim = join(layout.home, "notes.txt");
    writeFileSync(victim, "# bash gentle-shell\n");
    const sum = "0".repeat(64);
    writeFileSync(completionsReceiptPath(layout), JSON.stringify({ schema: 1, files: [{ path: victim, sha256: sum }], dirs: [layout.home, "/"] }));
    expect(recordedCompletionFiles(layout, {})).toEqual([]);
    expect(removeCompletions(layout, {})).toEqual({ removed: [], kept: [] });
    expect(existsSync(victim)).toBe(true);
  });

  it("says in the PATH step's line where they went, and for zsh the fpath line to add before compinit", () => {
    const layout = home();
    const zshrc = join(layout.home, ".zshrc");
    const line = (shell: "zsh" | "bash" | "sh", status: PathStepOutcome["status"] = "applied"): PathStepOutcome => ({
      status,
      plan: { kind: "line", shell, file: zshrc, line: "x", create: false },
      file: zshrc,
      nextStep: "",
    });
    expect(completionsStep(layout, {}, line("zsh"), scripts)).toBe(
      "; zsh completions in ~/.gentle-shell/completions/zsh; for them add fpath=(~/.gentle-shell/completions/zsh $fpath) before compinit in ~/.zshrc",
    );
    expect(readdirSync(join(layout.prefix, "completions/zsh")).sort()).toEqual(["_gentle-shell", "_gentle-shell-setup"]);
    // A shell it has no completions for, or a PATH step that set nothing up, writes none.
    expect(completionsStep(layout, {}, line("sh"), scripts)).toBe("");
    expect(completionsStep(layout, { SHELL: "/bin/bash" }, line("bash", "skipped"), scripts)).toBe("");
    expect(existsSync(join(layout.home, ".local"))).toBe(false);
  });

  it("for PowerShell names the profile's two dot-sourcing lines, $HOME for ~ inside double quotes, and writes the PowerShell format", () => {
    const layout = home();
    const profile = join(layout.home, ".config/powershell/profile.ps1");
    const outcome: PathStepOutcome = {
      status: "applied",
      plan: { kind: "line", shell: "pwsh", file: profile, line: "x", create: true },
      file: profile,
      nextStep: "",
    };
    expect(completionsStep(layout, {}, outcome, scripts)).toBe(
      '; pwsh completions in ~/.gentle-shell/completions/powershell; for them add . "$HOME/.gentle-shell/completions/powershell/gentle-shell.ps1"' +
        ' and . "$HOME/.gentle-shell/completions/powershell/gentle-shell-setup.ps1" to ~/.config/powershell/profile.ps1',
    );
    expect(readFileSync(join(layout.prefix, "completions/powershell/gentle-shell.ps1"), "utf8")).toBe("# powershell gentle-shell\n");
    expect(pwshHomeQuote('/opt/a "b" $c `d` \u201cq\u201d')).toBe('"/opt/a `"b`" `$c ``d`` `\u201cq`\u201d"');
  });

  it("for nu writes the nu format into its autoload folder and needs no line added", () => {
    const layout = home();
    const envNu = join(layout.home, ".config/nushell/env.nu");
    const outcome: PathStepOutcome = {
      status: "already",
      plan: { kind: "none", existing: { kind: "line", shell: "nu", file: envNu, line: "x" } },
      file: envNu,
      nextStep: "",
    };
    expect(completionsStep(layout, {}, outcome, scripts)).toBe("; nu completions in ~/.config/nushell/autoload");
    expect(readFileSync(join(layout.home, ".config/nushell/autoload/gentle-shell-completions.nu"), "utf8")).toBe("# nu gentle-shell\n");
  });

  it("prints the zsh fpath line as one word whatever the folder holds: plain under ~, else double-quoted with $HOME for ~", () => {
    expect(zshFpathLine("~/.gentle-shell/completions/zsh")).toBe("fpath=(~/.gentle-shell/completions/zsh $fpath)");
    expect(zshFpathLine("~/my tools/completions/zsh")).toBe('fpath=("$HOME/my tools/completions/zsh" $fpath)');
    expect(zshFpathLine('/opt/a "b" $c `d` \\e/zsh')).toBe('fpath=("/opt/a \\"b\\" \\$c \\`d\\` \\\\e/zsh" $fpath)');
  });
});
