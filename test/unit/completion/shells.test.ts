/**
 * The completion scripts in the real shells (issue 42): bash, zsh and fish
 * load each script as a user's shell does and are asked to complete a partial
 * word; the candidates are the table's. PowerShell has no real shell here: the
 * Windows CI job runs PSScriptAnalyzer on its script (.ci/install-ps1.ps1).
 * The scratch folder's name holds a space (issue 50), as a Windows or macOS
 * user's name brings one, so a path a harness hands a shell unquoted splits
 * and fails here rather than only on such a machine; and the zsh line the
 * install prints is put in a ~/.zshrc, in a home with a space and for a
 * prefix outside the home, and must make Tab complete.
 */
import { spawnSync } from "node:child_process";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "pathe";
import { beforeAll, beforeEach, describe, expect, it } from "vitest";
import type { CompletionShell } from "../../../src/core/completion/index";
import { prefixLayout } from "../../../src/core/layout";
import { completionsStep } from "../../../src/install/completions";
import { shQuote } from "../../../src/install/launcher";
import type { PathStepOutcome } from "../../../src/path/step";
import { buildPins } from "../../../src/pins";
import { requires } from "../../support/capabilities";
import { scratchDir } from "../../support/scratch";
import { installerScript, shellScript } from "./scripts";

/** Each line with what it completes to: the words before the cursor, and the partial word last. */
const INSTALLER: Array<[line: string, candidates: string[]]> = [
  ["gentle-shell-setup ins", ["install"]],
  ["gentle-shell-setup install --dr", ["--dry-run"]],
  ["gentle-shell-setup install --release 1.2.3 --ye", ["--yes"]],
  ["gentle-shell-setup install --no-mod", ["--no-modify-path"]],
  ["gentle-shell-setup release s", ["sign"]],
  ["gentle-shell-setup release sign --k", ["--key"]],
  ["gentle-shell-setup completions f", ["fish"]],
  ["gentle-shell-setup st", ["status"]],
];

const SHELL: Array<[line: string, candidates: string[]]> = [
  ["gentle-shell self", ["self-uninstall"]],
  ["gentle-shell completions z", ["zsh"]],
  ["gentle-shell memory m", ["migrate"]],
  ["gentle-shell memory migrate --c", ["--confirm-quiescent"]],
  ["gentle-shell upgrade --to 1.2.3 --ro", ["--rollback"]],
  ["gentle-shell doctor --f", ["--fix"]],
  // Pi's words: after a word that is none of Shell's, and after `--`, nothing of Shell's is offered.
  ["gentle-shell explain st", []],
  ["gentle-shell -- st", []],
];

let dir = "";
const files: Record<string, string> = {};

beforeAll(async () => {
  // An empty working folder: the scripts fall back to file names where nothing is theirs, and there are none here.
  dir = scratchDir("completion shells-");
  mkdirSync(join(dir, "empty"), { recursive: true });
  mkdirSync(join(dir, "zsh"), { recursive: true });
  for (const shell of ["bash", "zsh", "fish"] as const satisfies CompletionShell[]) {
    files[`gentle-shell-setup.${shell}`] = await installerScript(shell);
    files[`gentle-shell.${shell}`] = shellScript(shell);
  }
  for (const [name, text] of Object.entries(files)) writeFileSync(join(dir, name), text);
  // zsh finds a completion function as a file named after it in a folder on fpath (what the install writes).
  writeFileSync(join(dir, "zsh", "_gentle-shell-setup"), files["gentle-shell-setup.zsh"]!);
  writeFileSync(join(dir, "zsh", "_gentle-shell"), files["gentle-shell.zsh"]!);
});

function run(command: string, args: string[], env: Record<string, string> = {}): string {
  const r = spawnSync(command, args, { cwd: join(dir, "empty"), encoding: "utf8", timeout: 20_000, env: { PATH: process.env.PATH, HOME: dir, ...env } });
  if (r.status !== 0) throw new Error(`${command} exited ${r.status}: ${r.stderr}`);
  return r.stdout;
}

const words = (out: string) => out.split("\n").filter(Boolean).sort();

/** bash: the function called as bash calls it, with COMP_WORDS and COMP_CWORD set, then COMPREPLY. */
function bashComplete(line: string): string[] {
  const program = line.split(" ")[0]!;
  const fn = `_${program.replace(/-/g, "_")}`;
  const body = `source "$1"; shift; COMP_WORDS=("$@"); COMP_CWORD=$((\${#COMP_WORDS[@]} - 1)); ${fn}; printf '%s\\n' "\${COMPREPLY[@]}"`;
  return words(run("bash", ["--norc", "--noprofile", "-c", body, "bash", join(dir, `${program}.bash`), ...line.split(" ")]));
}

/** fish: the script sourced, then fish's own `complete -C` for the line. */
function fishComplete(line: string): string[] {
  const program = line.split(" ")[0]!;
  const out = run("fish", ["--no-config", "-c", 'source $argv[1]; complete -C"$argv[2]"', join(dir, `${program}.fish`), line]);
  return words(out.replace(/\t.*$/gm, ""));
}

/**
 * zsh: an interactive zsh in a pseudo-terminal (zsh/zpty) with compinit and the scripts' folder on fpath, the line
 * typed and Tab pressed; compadd is wrapped to write each candidate it is given that matches (-O) to a file first.
 */
function zshComplete(line: string): string[] {
  return zshTab(line, "zsh -f -i", dir, [`fpath=(${shQuote(join(dir, "zsh"))} $fpath); autoload -Uz compinit; compinit -u -D`]);
}

/**
 * `line` typed into the interactive zsh `start` (with HOME `home`) and Tab pressed, after the commands `setup`; the
 * candidates compadd was given.
 */
function zshTab(line: string, start: string, home: string, setup: string[]): string[] {
  const hits = join(dir, `hits-${Math.random().toString(36).slice(2)}`);
  writeFileSync(hits, "");
  const inner = [
    "PS1=''; unsetopt zle_bracketed_paste 2>/dev/null",
    ...setup,
    'compadd() { local -a hit; if (( ${@[(I)-[OAD]*]} )); then builtin compadd "$@"; return; fi; builtin compadd -O hit "$@"; print -rl -- $hit >> "$HITS"; builtin compadd "$@"; }',
  ];
  // Each step waits for its own marker, printed by arithmetic so the echo of the typed line cannot match it: nothing is
  // typed before the first prompt (a zsh still starting flushes what is waiting on its terminal), and the result is read
  // only once the line typed after Tab has run, so completion has finished.
  const step = (command: string, n: number) => [`zpty -w z ${shQuote(`${command}; print M$((${n}+1000))`)}`, `zpty -r -m z out '*M${n + 1000}*' || exit 3`];
  const driver = [
    "zmodload zsh/zpty",
    `zpty z ${shQuote(start)}`,
    "zpty -r -m z out '*[%#] *' || exit 4",
    ...inner.flatMap((c, i) => step(c, i)),
    `zpty -n -w z ${shQuote(`${line}\t`)}`,
    ...step(" ", inner.length),
    "zpty -d z",
  ].join("\n");
  run("zsh", ["-f", "-c", driver], { HITS: hits, HOME: home });
  return words(readFileSync(hits, "utf8"));
}

describe.each([
  ["bash", bashComplete],
  ["zsh", zshComplete],
  ["fish", fishComplete],
] as const)("%s completes", (shell, complete) => {
  // Real shells only: under Windows Node (the Windows lane) there is none to start.
  beforeEach((ctx) => requires(ctx, shell));
  it.each(INSTALLER)("gentle-shell-setup: %j", (line, candidates) => {
    expect(complete(line)).toEqual(candidates);
  });
  it.each(SHELL)("gentle-shell: %j", (line, candidates) => {
    expect(complete(line)).toEqual(candidates);
  });
});

describe("the ~/.zshrc line the install prints", () => {
  beforeEach((ctx) => requires(ctx, "zsh"));
  const zshrcPath = (home: string) => join(home, ".zshrc");
  const applied = (home: string): PathStepOutcome => ({
    status: "applied",
    plan: { kind: "line", shell: "zsh", file: zshrcPath(home), line: "x", create: false },
    file: zshrcPath(home),
    nextStep: "",
  });
  const scripts = (shell: CompletionShell) => [
    { command: "gentle-shell-setup" as const, text: files[`gentle-shell-setup.${shell}`]! },
    { command: "gentle-shell" as const, text: files[`gentle-shell.${shell}`]! },
  ];

  it.each([
    ["in a home with a space", "a home", null],
    ["for a prefix outside the home, in a folder with a space, a quote and a $", "home", "my 'prefix' $x"],
  ])("completes with Tab %s", (_case, homeName, prefixName) => {
    const home = join(dir, homeName);
    mkdirSync(home, { recursive: true });
    const prefix = prefixName === null ? undefined : join(dir, prefixName);
    const layout = prefixLayout({ home, platform: "linux", pins: buildPins(), prefix });
    mkdirSync(layout.prefix, { recursive: true });
    const step = completionsStep(layout, {}, applied(home), scripts);
    const printed = /for them add (.+) before compinit in ~\/\.zshrc$/.exec(step)?.[1];
    expect(printed, step).toBeDefined();
    writeFileSync(zshrcPath(home), `${printed}\nautoload -Uz compinit; compinit -u -D\n`);
    // -d: no /etc/zsh files, so only the user's ~/.zshrc sets completion up.
    expect(zshTab("gentle-shell-setup ins", "zsh -d -i", home, [])).toEqual(["install"]);
    expect(zshTab("gentle-shell doctor --f", "zsh -d -i", home, [])).toEqual(["--fix"]);
  });
});
