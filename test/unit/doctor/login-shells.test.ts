/**
 * doctor's login-shell check (issue 41), with a fake runner: which shell the
 * PATH receipt is for (none on Windows, none for ~/.profile), how a terminal
 * starts it and with what clean environment, and the decision over its
 * answer: our launcher ok, another file broken and named by its real path
 * (a global npm one with migrate's command, fish with its conf.d sentence),
 * an alias, no answer at all, a timeout and a failed start only warned, each
 * naming the startup file. The real shells are test/e2e/doctor-shells.test.ts's.
 */
import { describe, expect, it } from "vitest";
import { prefixLayout } from "../../../src/core/layout";
import { productionPins } from "../../../src/pins/production";
import { fishLine, posixLine, SHELLS } from "../../../src/path/shells";
import type { ReadReceipt } from "../../../src/path/receipt-file";
import {
  type LoginAnswer,
  type LoginShell,
  answerWithinMs,
  loginEnv,
  loginShellCheck,
  loginShellChecks,
  receiptShell,
  terminalFlags,
} from "../../../src/commands/doctor/login-shells";

const home = "/home/ada";
const linux = prefixLayout({ home, platform: "linux", pins: productionPins });
const launcher = linux.launcher;
const FIX = "gentle-shell doctor --fix";

const profile = (path: string, line = posixLine(linux.bin)): ReadReceipt => ({
  status: "valid",
  receipt: { schema: 1, kind: "profile", applied: true, path, line, create: false, separator: "" },
});
const link: ReadReceipt = { status: "valid", receipt: { schema: 1, kind: "link", applied: true, path: `${home}/.local/bin/gentle-shell`, target: launcher } };

const check = (shell: LoginShell, answer: LoginAnswer, file = `${home}/.bashrc`) =>
  loginShellCheck(linux, { shell, file, answer, launcherReal: launcher, prefixReal: linux.prefix }, FIX);

describe("which shell the receipt is for", () => {
  it("a profile line: the shell whose file it is; ~/.profile's reader is unknown, so none", () => {
    const env = { SHELL: "/bin/bash" };
    expect(receiptShell(linux, env, profile(`${home}/.bashrc`))).toEqual({ shell: "bash", file: `${home}/.bashrc` });
    expect(receiptShell(linux, env, profile(`${home}/.zshrc`))).toEqual({ shell: "zsh", file: `${home}/.zshrc` });
    const fish = `${home}/.config/fish/conf.d/gentle-shell.fish`;
    expect(receiptShell(linux, env, profile(fish, fishLine(linux.bin)))).toEqual({ shell: "fish", file: fish });
    const nu = `${home}/.config/nushell/env.nu`;
    expect(receiptShell(linux, env, profile(nu, SHELLS.nu.line(linux.bin)))).toEqual({ shell: "nu", file: nu });
    const pwsh = `${home}/.config/powershell/profile.ps1`;
    expect(receiptShell(linux, env, profile(pwsh, SHELLS.pwsh.line(linux.bin)))).toEqual({ shell: "pwsh", file: pwsh });
    expect(receiptShell(linux, env, profile(`${home}/.profile`))).toBeNull();
  });

  it("the ~/.local/bin link: the user's $SHELL when it is one the shell table can start", () => {
    expect(receiptShell(linux, { SHELL: "/usr/bin/zsh" }, link)).toEqual({ shell: "zsh", file: `${home}/.local/bin/gentle-shell` });
    expect(receiptShell(linux, { SHELL: "/opt/homebrew/bin/nu" }, link)).toEqual({ shell: "nu", file: `${home}/.local/bin/gentle-shell` });
    expect(receiptShell(linux, { SHELL: "/usr/bin/pwsh" }, link)).toEqual({ shell: "pwsh", file: `${home}/.local/bin/gentle-shell` });
    expect(receiptShell(linux, { SHELL: "/bin/dash" }, link)).toBeNull();
  });

  it("no receipt, one not ours, or Windows (the user Path is the registry's): no shell", () => {
    expect(receiptShell(linux, {}, { status: "missing" })).toBeNull();
    expect(receiptShell(linux, {}, { status: "invalid", reason: "x", manual: null })).toBeNull();
    expect(receiptShell(linux, {}, null)).toBeNull();
    const win = prefixLayout({ home: "C:\\Users\\ada", platform: "win32", pins: productionPins });
    const registry: ReadReceipt = {
      status: "valid",
      receipt: { schema: 1, kind: "registry", applied: true, key: "HKCU\\Environment", name: "Path", entry: win.bin },
    };
    expect(receiptShell(win, {}, registry)).toBeNull();
    expect(receiptShell(win, { SHELL: "/usr/bin/zsh" }, link)).toBeNull();
  });
});

describe("how the shell is started", () => {
  it("as terminals start it: Linux bash interactive (it reads ~/.bashrc), zsh and fish as interactive logins, macOS bash a login", () => {
    expect(terminalFlags("bash", "linux")).toEqual(["-i"]);
    expect(terminalFlags("bash", "darwin")).toEqual(["-l", "-i"]);
    expect(terminalFlags("zsh", "linux")).toEqual(["-l", "-i"]);
    expect(terminalFlags("fish", "linux")).toEqual(["-l", "-i"]);
    // nu -c reads env.nu and config.nu only as a login shell; pwsh's -Login must come first, and a profile that prompts must not wait.
    expect(terminalFlags("nu", "darwin")).toEqual(["-l"]);
    expect(terminalFlags("pwsh", "linux")).toEqual(["-Login", "-NoLogo", "-NonInteractive"]);
    // pwsh's -Login starts .NET twice: it gets longer than the few seconds the others get.
    expect([answerWithinMs("bash"), answerWithinMs("nu"), answerWithinMs("pwsh")]).toEqual([5000, 5000, 15_000]);
  });

  it("a clean environment: home, user, shell, a dumb terminal, login's PATH, and only the user's ZDOTDIR and XDG_CONFIG_HOME besides", () => {
    const env = { USER: "ada", PATH: `${linux.bin}:/opt/x`, GENTLE_SHELL_UPDATES: "off", NODE_OPTIONS: "--x", ZDOTDIR: `${home}/.zsh`, SECRET_TOKEN: "s" };
    expect(loginEnv(linux, env, "/usr/bin/zsh")).toEqual({
      HOME: home,
      USER: "ada",
      LOGNAME: "ada",
      SHELL: "/usr/bin/zsh",
      TERM: "dumb",
      PATH: "/usr/local/bin:/usr/bin:/bin",
      ZDOTDIR: `${home}/.zsh`,
    });
  });
});

describe("the decision over one shell's answer", () => {
  it("our launcher: ok", () => {
    expect(check("bash", { kind: "answered", text: launcher, real: launcher })).toEqual({
      group: "path",
      id: "path.login:bash",
      status: "ok",
      line: "a new bash finds our launcher",
    });
    expect(check("zsh", { kind: "answered", text: `${home}/.local/bin/gentle-shell`, real: launcher }, `${home}/.zshrc`).line).toBe(
      "a new zsh login finds our launcher",
    );
  });

  it("another file first: broken, named by its real path, with how to get it out of the way", () => {
    const c = check("bash", { kind: "answered", text: "/opt/tools/gentle-shell", real: "/opt/tools/real/gs" });
    expect(c.status).toBe("broken");
    expect(c.line).toBe("a new bash runs /opt/tools/real/gs (found as /opt/tools/gentle-shell), not our launcher: it comes first on that shell's PATH");
    expect(c.repair).toEqual({
      kind: "command",
      sentence: "remove /opt/tools/gentle-shell, or put /opt/tools after ~/.gentle-shell/bin on PATH in your startup files",
    });
    const npm = check("zsh", { kind: "answered", text: "/usr/bin/gentle-shell", real: "/usr/lib/node_modules/gentle-pi/bin/gentle-shell.mjs" });
    expect(npm.repair?.sentence).toBe("gentle-shell-setup migrate moves it into this install and removes the global package");
    const fish = check("fish", { kind: "answered", text: "/opt/gs/gentle-shell", real: "/opt/gs/gentle-shell" });
    expect(fish.line).toBe("a new fish login runs /opt/gs/gentle-shell, not our launcher: it comes first on that shell's PATH");
    expect(fish.repair?.sentence).toMatch(/^remove \/opt\/gs\/gentle-shell; fish reads conf\.d before config\.fish/);
  });

  it("an alias or a function: a warning naming it", () => {
    const c = check("zsh", { kind: "answered", text: "alias gentle-shell='gentle-shell --verbose'" });
    expect(c).toMatchObject({
      status: "warn",
      line: "a new zsh login runs its own alias or function for gentle-shell (alias gentle-shell='gentle-shell --verbose'), not our launcher directly",
    });
  });

  it("not found: a warning naming the file that should have put it on PATH", () => {
    expect(check("bash", { kind: "answered", text: "" })).toMatchObject({
      status: "warn",
      line: "a new bash does not find gentle-shell: our entry in ~/.bashrc does not reach it",
    });
  });

  it("a timeout or a failed start: a warning (never broken) naming the startup file", () => {
    expect(check("bash", { kind: "timeout" })).toMatchObject({
      status: "warn",
      line: "a new bash did not answer within 5 s; its startup files (~/.bashrc among them) are slow or wait for input",
    });
    expect(check("zsh", { kind: "failed", reason: "it exited with code 1 before answering" }, `${home}/.zshrc`)).toMatchObject({
      status: "warn",
      line: "a new zsh login could not be asked (it exited with code 1 before answering); its startup files include ~/.zshrc",
    });
  });
});

describe("the checks over a fake runner", () => {
  const runner = (binary: string | null, answer: LoginAnswer) => {
    const asked: string[] = [];
    return {
      asked,
      find: (shell: LoginShell) => (binary ? `${binary}/${shell}` : null),
      ask: async (shell: LoginShell, bin: string) => {
        asked.push(`${shell} ${bin}`);
        return answer;
      },
    };
  };

  it("asks the receipt's shell, found on this machine, once", async () => {
    const r = runner("/usr/bin", { kind: "answered", text: launcher, real: launcher });
    const checks = await loginShellChecks(linux, { SHELL: "/bin/bash" }, profile(`${home}/.zshrc`), FIX, r);
    expect(r.asked).toEqual(["zsh /usr/bin/zsh"]);
    expect(checks.map((c) => [c.id, c.status])).toEqual([["path.login:zsh", "ok"]]);
  });

  it("no check when the shell is not on this machine, or there is no receipt to follow", async () => {
    const absent = runner(null, { kind: "timeout" });
    expect(await loginShellChecks(linux, {}, profile(`${home}/.bashrc`), FIX, absent)).toEqual([]);
    const none = runner("/usr/bin", { kind: "timeout" });
    expect(await loginShellChecks(linux, {}, { status: "missing" }, FIX, none)).toEqual([]);
    expect(none.asked).toEqual([]);
  });
});
