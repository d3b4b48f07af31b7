/**
 * README's test command on a fresh machine (issue 14): `npm test` runs
 * .ci/system-tools first. With the Debian tools hidden from PATH it either
 * installs them (root) or stops with one sentence naming the apt command;
 * it never goes on to fail tests with `spawn zsh ENOENT`. Run with real
 * bash, a PATH folder holding only the commands the script itself needs, and
 * a real unprivileged user (setpriv) for the branch that cannot install.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { mkdtempSync, promises as fs } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "pathe";
import { runCommand } from "../support/proc";

const REPO = join(import.meta.dirname, "..", "..");
const root = mkdtempSync(join(tmpdir(), "gss-system-tools-"));
const script = join(root, "system-tools");
const ALL_PACKAGES = ["zsh", "fish", "tmux", "dash", "shellcheck", "iproute2", "util-linux", "e2fsprogs", "openssl", "curl", "ruby"];

/** A PATH folder with only `names` in it, each a link to the real command. */
async function pathWith(name: string, names: string[]): Promise<string> {
  const dir = join(root, name);
  await fs.mkdir(dir);
  for (const command of names) {
    const found = await runCommand("bash", ["-c", `command -v ${command}`]);
    await fs.symlink(found.stdout.trim(), join(dir, command));
  }
  return dir;
}

beforeAll(async () => {
  await fs.chmod(root, 0o755);
  await fs.copyFile(join(REPO, ".ci", "system-tools"), script);
  await fs.chmod(script, 0o755);
});

afterAll(() => fs.rm(root, { recursive: true, force: true }));

describe(".ci/system-tools, npm test's pretest", () => {
  it("goes on quietly when every tool is on PATH", async () => {
    const r = await runCommand("bash", [script]);
    expect(r.stdout, r.stderr).toBe("--- system tools already present\n");
    expect(r.code).toBe(0);
  });

  it("without root or sudo, stops with one sentence naming the apt command for every missing package", async () => {
    const bin = await pathWith("bare", ["grep", "id"]);
    const r = await runCommand("/usr/bin/setpriv", ["--reuid=nobody", "--regid=nogroup", "--clear-groups", "/bin/bash", script], {
      env: { PATH: bin, HOME: root },
      cwd: root,
    });
    expect(r.code).toBe(1);
    expect(r.stdout).toBe("");
    const list = ALL_PACKAGES.join(" ");
    expect(r.stderr).toBe(`The tests need ${list}: run 'sudo apt-get update && sudo apt-get install -y ${list}', then npm test again.\n`);
  });

  it("names a tool whose package is installed but whose command is not on PATH, and installs nothing", async () => {
    const bin = await pathWith("no-zsh", ["grep", "id", "dpkg-query"]);
    const r = await runCommand("/bin/bash", [script], { env: { PATH: bin, HOME: root }, cwd: root });
    expect(r.code).toBe(1);
    expect(r.stderr).toBe("system-tools: zsh is installed but zsh is not on PATH\n");
    expect(r.stdout).not.toContain("installing");
  });
});
