/**
 * The completion scripts are made from the tables that parse the words
 * (issue 42): every command and option of citty's table (gentle-shell-setup)
 * and of Shell's own table and specs (gentle-shell) is in each of the five
 * scripts (nu: the long forms only); a command added to a table is in them without more; and the two
 * `completions` commands refuse a missing or unknown shell in one sentence.
 */
import { spawnSync } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "pathe";
import { type ArgsDef, type CommandDef, defineCommand } from "citty";
import { describe, expect, it } from "vitest";
import { installerCompletionTree } from "../../../src/cli/completions";
import { installerTable, runInstallerCli } from "../../../src/cli/index";
import { COMPLETION_SHELLS, completionScript } from "../../../src/core/completion/index";
import { EXIT, UserError } from "../../../src/core/errors";
import { classifyLaunch, PI_SUBCOMMANDS } from "../../../src/core/pi-launch";
import { SHELL_COMMANDS } from "../../../src/core/shell-commands";
import { STATUS_OPTIONS, STRICT_SPECS } from "../../../src/commands/specs";
import { ENGINE_COMMANDS, findEngineCommand } from "../../../src/commands/index";
import { shellCompletionTree } from "../../../src/commands/completions";
import { runCompletions } from "../../../src/commands/completions";
import { parseStatusArgs } from "../../../src/commands/status/command";
import { testHost } from "../../support/host";
import { scratchDir } from "../../support/scratch";
import { installerScript, shellScript } from "./scripts";

type Command = CommandDef<ArgsDef>;

/** Every command of citty's table with its words, read here on its own (not through the tree the scripts are made from). */
function cittyCommands(def: Command, words: string[] = []): Array<{ words: string[]; options: string[] }> {
  const args = Object.entries((def.args ?? {}) as Record<string, { type?: string; alias?: string | string[] }>);
  const options = args
    .filter(([, a]) => a.type !== "positional")
    .flatMap(([name, a]) => [`--${name}`, ...[a.alias ?? []].flat().map((x) => (x.length === 1 ? `-${x}` : `--${x}`))]);
  const subs = Object.entries((def.subCommands ?? {}) as Record<string, Command>);
  return [{ words, options }, ...subs.flatMap(([name, sub]) => cittyCommands(sub, [...words, name]))];
}

/** The lines of nu's `extern "<name>" [ ... ]` block. */
function externBlock(script: string, name: string): string[] {
  const lines = script.split("\n");
  const start = lines.indexOf(`extern "${name}" [`);
  expect(start, `extern "${name}"`).toBeGreaterThanOrEqual(0);
  return lines.slice(start, lines.indexOf("]", start) + 1);
}

describe("gentle-shell-setup's scripts", () => {
  it.each(COMPLETION_SHELLS)("%s: every command and option of citty's table", async (shell) => {
    const script = await installerScript(shell);
    const commands = cittyCommands(installerTable());
    expect(commands.map((c) => c.words.join(" "))).toEqual(expect.arrayContaining(["install", "release sign", "doctor", "completions"]));
    for (const { words, options } of commands) {
      for (const word of words) expect(script, `${shell}: ${words.join(" ")}`).toContain(word);
      // Each option is offered in its command's place: the node's id and the option on one line (fish: its -l name; nu: the node's extern block).
      const lines =
        shell === "nu"
          ? externBlock(script, ["gentle-shell-setup", ...words].join(" "))
          : script
              .split("\n")
              .filter((l) => l.includes(shell === "fish" ? `_at "${words.join(" ")}"'` : `'${words.join(" ")}'`) || l.includes(`"${words.join(" ")}"`));
      for (const option of options) {
        // nu is given no short forms: it would rewrite a declared -y into --yes before starting the program (core/completion/nushell.ts).
        if (shell === "nu" && !option.startsWith("--")) continue;
        const written = shell === "fish" ? (option.startsWith("--") ? `-l '${option.slice(2)}'` : `-s '${option.slice(1)}'`) : option;
        expect(
          lines.some((l) => l.includes(written)),
          `${shell}: ${words.join(" ")} ${option}`,
        ).toBe(true);
      }
    }
  });

  it("a command added to citty's table is in every script, with its options", () => {
    const fake = defineCommand({
      meta: { name: "frobnicate", description: "A command only this test has" },
      args: { widget: { type: "string", description: "w" }, loud: { type: "boolean", alias: "L" } },
    });
    const table = { ...installerTable(), subCommands: { ...(installerTable().subCommands as Record<string, Command>), frobnicate: fake } } as Command;
    for (const shell of COMPLETION_SHELLS) {
      const script = completionScript(installerCompletionTree(table), shell);
      expect(script, shell).toContain("frobnicate");
      expect(script, shell).toContain(shell === "fish" ? "-l 'widget' -r -F" : "--widget");
      expect(script, shell).toContain(shell === "fish" ? "-l 'loud' -s 'L'" : shell === "nu" ? "--loud" : "-L");
      expect(completionScript(installerCompletionTree(installerTable()), shell), shell).not.toContain("frobnicate");
    }
  });

  it("refuses no shell, an unknown one, or a second word, in one sentence with exit 2", async () => {
    for (const [args, sentence] of [
      [["completions"], "gentle-shell-setup completions needs a shell; usage: gentle-shell-setup completions <bash|zsh|fish|nu|powershell>"],
      [["completions", "tcsh"], 'unknown shell "tcsh" for gentle-shell-setup completions; usage: gentle-shell-setup completions <bash|zsh|fish|nu|powershell>'],
      [["completions", "bash", "zsh"], 'unexpected argument "zsh" for gentle-shell-setup completions; see gentle-shell-setup completions --help'],
    ] as const) {
      const error = await runInstallerCli([...args], testHost()).catch((e: unknown) => e);
      expect(error, args.join(" ")).toBeInstanceOf(UserError);
      expect((error as UserError).message).toBe(sentence);
      expect((error as UserError).exitCode).toBe(EXIT.usage);
    }
  });
});

describe("gentle-shell's scripts", () => {
  it.each(COMPLETION_SHELLS)("%s: every one of Shell's commands and every option its spec or status reads", (shell) => {
    const script = shellScript(shell);
    for (const { name } of SHELL_COMMANDS) for (const word of name.split(" ")) expect(script, `${shell}: ${name}`).toContain(word);
    const options = [...STRICT_SPECS.flatMap((s) => [...Object.keys(s.options), ...Object.keys(s.aliases ?? {})]), ...STATUS_OPTIONS];
    for (const option of options) {
      if (shell === "nu" && !option.startsWith("--")) continue;
      expect(script, `${shell}: ${option}`).toContain(
        shell === "fish" ? (option.startsWith("--") ? `-l '${option.slice(2)}'` : `-s '${option.slice(1)}'`) : option,
      );
    }
  });

  it("a command added to Shell's table is in every script", () => {
    const tree = shellCompletionTree();
    tree.root.commands.push({
      name: "frobnicate",
      description: "only this test's",
      options: [{ long: "--widget", takesValue: true, description: "w" }],
      commands: [],
    });
    for (const shell of COMPLETION_SHELLS) {
      expect(completionScript(tree, shell), shell).toContain("frobnicate");
      expect(completionScript(tree, shell), shell).toContain(shell === "fish" ? "-l 'widget' -r -F" : "--widget");
      expect(shellScript(shell), shell).not.toContain("frobnicate");
    }
  });

  it("reads the strict commands' specs the engine runs them with, and status's words as status reads them", () => {
    const specs = Object.keys(ENGINE_COMMANDS).flatMap((name) => findEngineCommand(classifyLaunch(name.split(" "), {}))?.spec ?? []);
    expect([...STRICT_SPECS].sort((a, b) => a.name.localeCompare(b.name))).toEqual(specs.sort((a, b) => a.name.localeCompare(b.name)));
    for (const option of STATUS_OPTIONS) expect(typeof parseStatusArgs([option]), option).toBe("object");
    expect(parseStatusArgs(["--bogus"])).toContain("--json, --memory and --no-memory");
  });

  it("takes the word completions from Pi as doctor was taken: none of Pi's commands, and after -- it is Pi's", () => {
    expect(PI_SUBCOMMANDS.has("completions")).toBe(false);
    expect(classifyLaunch(["completions", "bash"], {}).shellCommand).toEqual({ name: "completions", rest: ["bash"] });
    expect(classifyLaunch(["--", "completions", "bash"], {}).shellCommand).toBeNull();
  });

  it("refuses no shell or an unknown one with exit 2, and prints its help", () => {
    const host = testHost();
    expect(runCompletions([], host)).toBe(EXIT.usage);
    expect(runCompletions(["tcsh"], host)).toBe(EXIT.usage);
    expect(host.lines.err).toEqual([
      "gentle-shell: gentle-shell completions needs a shell; usage: gentle-shell completions <bash|zsh|fish|nu|powershell>",
      'gentle-shell: unknown shell "tcsh" for gentle-shell completions; usage: gentle-shell completions <bash|zsh|fish|nu|powershell>',
    ]);
    expect(runCompletions(["--help"], host)).toBe(EXIT.ok);
    expect(host.lines.out[0]).toBe("usage: gentle-shell completions <bash|zsh|fish|nu|powershell>");
  });
});

describe("the PowerShell scripts", () => {
  it("register a native completer for each name, in plain ASCII (no byte-order mark needed)", async () => {
    for (const [script, names] of [
      [await installerScript("powershell"), "@('gentle-shell-setup', 'gentle-shell-setup.exe')"],
      [shellScript("powershell"), "@('gentle-shell', 'gentle-shell.cmd')"],
    ] as const) {
      expect(script).toContain(`Register-ArgumentCompleter -Native -CommandName ${names} -ScriptBlock {`);
      expect(/^[\x20-\x7e\n]*$/.test(script)).toBe(true);
    }
  });
});

describe("build/completion-scripts.mjs (the scripts the Windows CI job lints)", () => {
  it("writes both commands' script for every shell, each what the commands print", async () => {
    const out = scratchDir("completion scripts-");
    const r = spawnSync(process.execPath, ["build/completion-scripts.mjs", out], { encoding: "utf8", timeout: 120_000 });
    expect(r.status, r.stderr).toBe(0);
    const extension: Record<string, string> = { bash: "bash", zsh: "zsh", fish: "fish", nu: "nu", powershell: "ps1" };
    expect(readdirSync(out).sort()).toEqual(
      COMPLETION_SHELLS.flatMap((shell) => [`gentle-shell-setup.${extension[shell]}`, `gentle-shell.${extension[shell]}`]).sort(),
    );
    for (const shell of COMPLETION_SHELLS) {
      expect(readFileSync(join(out, `gentle-shell.${extension[shell]}`), "utf8").trimEnd(), shell).toBe(shellScript(shell).trimEnd());
      expect(readFileSync(join(out, `gentle-shell-setup.${extension[shell]}`), "utf8").trimEnd(), shell).toBe((await installerScript(shell)).trimEnd());
    }
  });
});
