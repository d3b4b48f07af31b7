/**
 * The user docs cannot rot (issue 42, part 4), the part that needs no
 * install: every relative link of README.md and docs/*.md reaches a file
 * (and a heading, for an anchor); every command line of their fenced blocks
 * is either ours (run by integration/docs-commands.test.ts), an npm script or
 * a script of this repository that exists, one of the one-line installers
 * naming the installers' real download address, or listed below with the
 * reason it is not run. README keeps what the project's rules ask of it: the
 * developers' two commands, doctor and the update policy's files. The
 * GitHub Action the docs show uses only action.yml's inputs and outputs.
 */
import { existsSync, readFileSync, statSync } from "node:fs";
import { dirname, join } from "pathe";
import { load } from "js-yaml";
import { describe, expect, it } from "vitest";
import { RELEASE_HOME } from "../../src/core/source";
import {
  type DocCommand,
  docCommands,
  docFiles,
  fencedBlocks,
  fencedCommands,
  headingAnchors,
  inlineCommands,
  programOf,
  REPO,
  relativeLinks,
  shellWords,
} from "../support/doc-commands";

// A CRLF checkout (test:runners and the Windows lane replay one) reads as LF, as a reader of markdown does.
const read = (rel: string) => readFileSync(join(REPO, rel), "utf8").replace(/\r\n/g, "\n");

/** Command lines no test runs, each with the reason. Keep this short. */
const UNCHECKED: Record<string, string> = {
  "chmod +x ./gentle-shell-setup-linux-x64": "the system's own command, making a browser download executable",
  "sh gs-bundle/install.sh": "needs a bundle on a stick; integration/offline-install.test.ts runs a bundle's install.sh",
  "xattr -d com.apple.quarantine ./gentle-shell-setup-darwin-arm64": "macOS's own command, for a file a browser downloaded; there is no macOS here",
  "Unblock-File .\\gentle-shell-setup-win-x64.exe": "Windows PowerShell's own command, for a file a browser downloaded; there is no Windows here",
};

/** The download address each installer uses by default. */
function installerBases(): { sh: string; ps1: string } {
  const sh = /download_base=\$\{GENTLE_SHELL_SETUP_DOWNLOAD:-(https:[^}]+)\}/.exec(read("installers/install.sh"))?.[1];
  const ps1 = /\$DefaultDownload = '(https:[^']+)'/.exec(read("installers/install.ps1"))?.[1];
  expect(sh, "install.sh's default download_base").toBeTruthy();
  expect(ps1, "install.ps1's $DefaultDownload").toBeTruthy();
  return { sh: sh!, ps1: ps1! };
}

/** Why a command line that is not ours is right, or a failure message. */
function checkOther(c: DocCommand, scripts: Record<string, string>, bases: { sh: string; ps1: string }): string | null {
  const where = `${c.file}:${c.line}: ${c.text}`;
  if (c.text in UNCHECKED) return null;
  const urls = [...c.text.matchAll(/https:\/\/[^\s)"']+/g)].map((m) => m[0]);
  if (c.words[0] === "curl") {
    const pipe = c.words.indexOf("|");
    if (urls.length !== 1 || urls[0] !== `${bases.sh}/install.sh` || c.words[pipe + 1] !== "sh") return `${where}: not install.sh's own address piped to sh`;
    return null;
  }
  if (/\birm\b/.test(c.text)) {
    if (urls.length !== 1 || urls[0] !== `${bases.ps1}/install.ps1`) return `${where}: not install.ps1's own address`;
    return null;
  }
  if (c.words[0] === "npm") {
    // `npm ci && npm run demo`, `npm test`: each npm run names a script of package.json.
    const parts = c.text.split("&&").map((part) => shellWords(part.trim()));
    for (const words of parts) {
      if (words[0] !== "npm") return `${where}: only npm commands are chained here`;
      if (words[1] === "ci") continue;
      const script = words[1] === "run" ? words[2] : words[1];
      if (!script || !(script in scripts)) return `${where}: package.json has no script ${script}`;
    }
    return null;
  }
  if (c.words[0] === "node" || c.words[0] === "bash") {
    if (!existsSync(join(REPO, c.words[1] ?? ""))) return `${where}: ${c.words[1]} is not a file of this repository`;
    return null;
  }
  return `${where}: not a command of ours, an npm script, a script of this repository or a one-line installer; run it in a test or list it in UNCHECKED with the reason`;
}

describe("the user docs", () => {
  const files = docFiles();

  it("are README.md and one page for each subject of issue 42", () => {
    for (const page of ["corporate-networks", "offline", "fleets-and-ci", "upgrade", "memory", "troubleshooting", "releasing", "architecture"]) {
      expect(files).toContain(`docs/${page}.md`);
    }
  });

  it("link only to files that exist, and to headings those files have", () => {
    const broken: string[] = [];
    for (const file of files) {
      for (const link of relativeLinks(file, read(file))) {
        const [path, anchor] = link.target.split("#") as [string, string | undefined];
        const target = path ? join(dirname(join(REPO, file)), path) : join(REPO, file);
        const where = `${link.file}:${link.line}: ${link.target}`;
        if (!existsSync(target)) broken.push(`${where}: no such file`);
        else if (anchor !== undefined) {
          if (!target.endsWith(".md") || statSync(target).isDirectory()) broken.push(`${where}: an anchor into a file that is not markdown`);
          else if (!headingAnchors(readFileSync(target, "utf8").replace(/\r\n/g, "\n")).has(anchor)) broken.push(`${where}: no heading makes #${anchor}`);
        }
      }
    }
    expect(broken).toEqual([]);
  });

  it("show only commands that a test runs or that are listed with the reason they are not run", () => {
    const commands = docCommands();
    const scripts = JSON.parse(read("package.json")).scripts as Record<string, string>;
    const bases = installerBases();
    expect(bases.sh).toBe(`https://github.com/${RELEASE_HOME}/releases/latest/download`);
    const failures = commands.filter((c) => c.program === "other").flatMap((c) => checkOther(c, scripts, bases) ?? []);
    expect(failures).toEqual([]);
    // The listed ones are still in the docs (a stale entry would hide nothing, but would mislead).
    for (const text of Object.keys(UNCHECKED)) expect(commands.map((c) => c.text)).toContain(text);
    // Both installers' one-liners are shown.
    expect(commands.some((c) => c.words[0] === "curl")).toBe(true);
    expect(commands.some((c) => /\birm\b/.test(c.text))).toBe(true);
  });

  it("README opens for users and keeps the developers' two commands, doctor and the policy files", () => {
    const readme = read("README.md");
    const headings = [...readme.matchAll(/^## (.*)$/gm)].map((m) => m[1]);
    expect(headings.slice(0, 3)).toEqual(["Install", "The first five commands", "For developers"]);
    const section = (name: string) => readme.split(`## ${name}\n`)[1]!.split(/^## /m)[0]!;
    expect(fencedCommands("README.md", section("For developers")).map((c) => c.text)).toEqual(["npm ci && npm run demo", "npm ci && npm test"]);
    expect(fencedCommands("README.md", section("The first five commands")).map((c) => c.words.slice(0, 2).join(" "))).toEqual([
      "gentle-shell",
      "gentle-shell status",
      "gentle-shell doctor",
      "gentle-shell upgrade",
      "gentle-shell self-uninstall",
    ]);
    const policy = section("Who may update: the update policy");
    expect(policy).toContain("/etc/gentle-shell/policy.json");
    expect(policy).toContain("C:\\ProgramData\\gentle-shell\\policy.json");
    expect(section("When something is wrong: doctor")).toContain("gentle-shell doctor --fix");
  });
});

describe("reading commands out of markdown", () => {
  it("takes inline spans of ours in prose, one across a line break too, and none from a fenced block", () => {
    const text = [
      "Run `gentle-shell doctor --fix` first, then `npm ci`, then",
      "`gentle-shell upgrade",
      "--rollback` if you must; ``gentle-shell x`` is not a span of ours.",
      "```sh",
      "echo `gentle-shell status`",
      "```",
      "Last: `./gentle-shell-setup-linux-x64 install` is a path, and `gentle-shell-setup migrate`.",
    ].join("\n");
    expect(inlineCommands("x.md", text).map((c) => [c.line, c.text, c.args])).toEqual([
      [1, "gentle-shell doctor --fix", ["doctor", "--fix"]],
      [2, "gentle-shell upgrade --rollback", ["upgrade", "--rollback"]],
      [7, "gentle-shell-setup migrate", ["migrate"]],
    ]);
  });

  it("takes fenced sh, console and powershell lines, without prompts, comments and assignments", () => {
    const text = [
      "```sh",
      "$ gentle-shell-setup install --source 'a b'   # a comment",
      "   # a comment's second line",
      "GENTLE_SHELL_UPDATES=off gentle-shell upgrade",
      "```",
      "```json",
      '{ "updates": "off" }',
      "```",
      "```powershell",
      "./gs/gentle-shell-setup-win-x64.exe verify ./gs",
      "```",
    ].join("\n");
    const commands = fencedCommands("x.md", text);
    expect(commands.map((c) => [c.line, c.program, c.args])).toEqual([
      [2, "gentle-shell-setup", ["install", "--source", "a b"]],
      [4, "gentle-shell", ["upgrade"]],
      [10, "gentle-shell-setup", ["verify", "./gs"]],
    ]);
    expect(programOf("/tmp/h/.gentle-shell/bin/gentle-shell")).toBe("gentle-shell");
    expect(programOf("gentle-shell-setup-linux-x64")).toBe("gentle-shell-setup");
    expect(programOf("gentle-shellx")).toBe("other");
    expect(() => fencedCommands("x.md", "```sh\ngentle-shell\n")).toThrow(/never closed/);
  });

  it("makes GitHub's anchors of headings", () => {
    const anchors = headingAnchors("# A b\n## Moving from `npm i -g gentle-pi`\n## A b\n```sh\n# not a heading\n```\n");
    expect([...anchors]).toEqual(["a-b", "moving-from-npm-i--g-gentle-pi", "a-b-1"]);
  });
});

describe("the GitHub Action the docs show", () => {
  it("is used as @v1 with only the inputs action.yml declares, and reads only its outputs", () => {
    const action = load(read("action.yml")) as { inputs: Record<string, unknown>; outputs: Record<string, unknown> };
    const uses = `${RELEASE_HOME}@v1`;
    let shown = 0;
    for (const file of docFiles()) {
      for (const block of fencedBlocks(read(file), "yaml")) {
        const doc = load(block) as unknown;
        const steps = Array.isArray(doc) ? doc : (doc as { steps?: unknown } | null)?.steps;
        if (!Array.isArray(steps)) continue;
        const ids = new Set<string>();
        for (const step of steps as Array<{ uses?: string; id?: string; with?: Record<string, unknown> }>) {
          if (!step.uses?.startsWith(`${RELEASE_HOME}@`)) continue;
          shown++;
          expect(step.uses, file).toBe(uses);
          for (const input of Object.keys(step.with ?? {})) expect(Object.keys(action.inputs), `${file}: input ${input}`).toContain(input);
          if (step.id) ids.add(step.id);
        }
        for (const m of block.matchAll(/steps\.([\w-]+)\.outputs\.([\w-]+)/g)) {
          expect(ids.has(m[1]!), `${file}: ${m[0]} names a step that is not the action's`).toBe(true);
          expect(Object.keys(action.outputs), `${file}: ${m[0]}`).toContain(m[2]);
        }
      }
    }
    expect(shown).toBeGreaterThan(0);
  });
});
