/**
 * The installer's command line walks citty's own tree (src/cli/index.ts):
 * one lookup finds the command (two deep for `release sign`), its help names
 * it in full, and a word that is no command is one sentence with exit 2.
 * The Host is passed to the command found as citty's run data.
 */
import { mkdirSync } from "node:fs";
import { join } from "pathe";
import { describe, expect, it } from "vitest";
import { findCommand, runInstallerCli } from "../../src/cli/index";
import { EXIT, UserError } from "../../src/core/errors";
import { testHost } from "../support/host";
import { scratchDir } from "../support/scratch";

/** What runInstallerCli prints on the Host's stdout (help is a line of the Host's, like any other). */
async function stdoutOf(args: string[]): Promise<string> {
  const host = testHost();
  await runInstallerCli(args, host);
  return host.lines.out.map((line) => `${line}\n`).join("");
}

describe("the installer's command lookup", () => {
  it("finds a command, or a release command two deep, with the words after it", () => {
    expect(findCommand(["install", "--yes"])).toMatchObject({ path: ["install"], parentName: "gentle-shell-setup", rest: ["--yes"] });
    expect(findCommand(["release", "sign", "--assets", "x"])).toMatchObject({
      path: ["release", "sign"],
      parentName: "gentle-shell-setup release",
      rest: ["--assets", "x"],
    });
    expect(findCommand(["release", "bogus"])).toMatchObject({ path: ["release"], rest: ["bogus"] });
    for (const args of [["bogus"], ["--yes"], []]) expect(findCommand(args), JSON.stringify(args)).toBeNull();
  });

  it("finds every command the top help lists", async () => {
    const help = await stdoutOf(["--help"]);
    const listed = /USAGE gentle-shell-setup (\S+)/.exec(help)?.[1]?.split("|") ?? [];
    expect(listed).toEqual(["install", "migrate", "uninstall", "bundle", "release", "verify", "status", "doctor", "completions"]);
    for (const name of listed) expect(findCommand([name])?.path).toEqual([name]);
  });

  it("names a release command in full in its help", async () => {
    expect(await stdoutOf(["release", "sign", "--help"])).toContain("USAGE gentle-shell-setup release sign [OPTIONS]");
    expect(await stdoutOf(["release", "--help"])).toContain("USAGE gentle-shell-setup release build|verify|sign|check");
  });

  it("refuses a word that is none of release's commands, or none at all, in one sentence with exit 2", async () => {
    const refused = (args: string[]) =>
      runInstallerCli(args, testHost()).then(
        () => null,
        (error: unknown) => error,
      );
    for (const [args, sentence] of [
      [["release", "bogus"], 'unknown command "release bogus"; see gentle-shell-setup release --help'],
      [["release"], "release needs one of its commands; see gentle-shell-setup release --help"],
      [["bogus"], 'unknown command "bogus"; see gentle-shell-setup --help'],
    ] as const) {
      const error = await refused([...args]);
      expect(error, args.join(" ")).toBeInstanceOf(UserError);
      expect((error as UserError).message).toBe(sentence);
      expect((error as UserError).exitCode).toBe(EXIT.usage);
    }
  });

  it("refuses doctor --source without --fix in one sentence with exit 2, before the install is read (issue 47)", async () => {
    const error = await runInstallerCli(["doctor", "--source", "./bundle"], testHost()).then(
      () => null,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(UserError);
    expect((error as UserError).message).toBe(
      "--source is used only with --fix (doctor downloads nothing when it only checks); run gentle-shell-setup doctor --fix --source ./bundle",
    );
    expect((error as UserError).exitCode).toBe(EXIT.usage);
  });

  it("hands the Host to the command it runs: its home, its lines", async () => {
    const home = scratchDir("gss-host-");
    const host = testHost({ home });
    expect(await runInstallerCli(["status"], host)).toBe(EXIT.ok);
    expect(host.lines.out).toEqual(["Gentle Shell is not installed here (~/.gentle-shell does not exist)."]);
  });

  it("resolves to the exit code the command returns, and under --json to the document's", async () => {
    // A Gentle Shell folder with nothing in it: status reports what is missing and fails.
    const home = scratchDir("gss-host-");
    mkdirSync(join(home, ".gentle-shell"), { recursive: true });
    const host = testHost({ home, env: { HOME: home } });
    expect(await runInstallerCli(["status", "--no-memory"], host)).toBe(EXIT.failure);
    const json = testHost({ home, env: { HOME: home } });
    expect(await runInstallerCli(["status", "--json"], json)).toBe(EXIT.failure);
    expect(JSON.parse(json.lines.document.join(""))).toMatchObject({ command: "status", ok: false, exitCode: EXIT.failure });
    expect(await runInstallerCli(["--help"], testHost())).toBe(EXIT.ok);
  });
});
