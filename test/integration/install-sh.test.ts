/**
 * installers/install.sh, the `curl … | sh` bootstrap, run for real: piped
 * into dash, bash and zsh from curl, against a local download folder holding
 * the fixture binary and its SHA256SUMS. The noexec tests mount a real
 * noexec tmpfs inside their own mount namespace (`unshare -m`, as root, like
 * the offline tests' `unshare -n`): an unshare that fails fails the test.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { registryLine, writeNpmrc } from "../support/npmrc";
import { promises as fs } from "node:fs";
import { createHash } from "node:crypto";
import { basename, join } from "pathe";
import { fixtures } from "../support/context";
import { homeEnv } from "../support/fixtures";
import { freePort, runCommand } from "../support/proc";
import { serveFiles } from "../support/http-util";
import { REPO_ROOT } from "../support/paths";
import { scratchDir } from "../support/scratch";

const f = fixtures();
const script = join(REPO_ROOT, "installers", "install.sh");
const latest = f.releases[f.releases.length - 1]!;
let close: () => Promise<void>;
let base: string;
let tampered: string;
const files = new Map<string, string>();

beforeAll(async () => {
  const dir = scratchDir("gss-download-");
  // SHA256SUMS as the release publishes it, for the binary the fixtures built.
  const digest = createHash("sha256")
    .update(await fs.readFile(f.binary!))
    .digest("hex");
  const sums = `${"0".repeat(64)}  gentle-shell-setup-darwin-arm64\n${digest}  ${basename(f.binary!)}\n`;
  files.set("/good/SHA256SUMS", join(dir, "SHA256SUMS"));
  await fs.writeFile(files.get("/good/SHA256SUMS")!, sums);
  files.set(`/good/${basename(f.binary!)}`, f.binary!);
  files.set("/good/install.sh", script);
  // A copy whose last byte differs from what SHA256SUMS says.
  tampered = join(dir, "tampered");
  await fs.copyFile(f.binary!, tampered);
  const handle = await fs.open(tampered, "r+");
  const { size } = await handle.stat();
  const last = Buffer.alloc(1);
  await handle.read(last, 0, 1, size - 1);
  await handle.write(Buffer.from([last[0]! ^ 0xff]), 0, 1, size - 1);
  await handle.close();
  files.set("/bad/SHA256SUMS", files.get("/good/SHA256SUMS")!);
  files.set(`/bad/${basename(f.binary!)}`, tampered);
  ({ base, close } = await serveFiles(files));
});

afterAll(async () => {
  await close();
});

async function home() {
  const h = join(scratchDir("gss-sh-"), "home");
  await fs.mkdir(h, { recursive: true });
  await writeNpmrc(h, [registryLine(f.registryUrl)]);
  return h;
}

describe.concurrent("curl … | sh", () => {
  for (const shell of ["dash", "bash", "zsh"]) {
    it(`installs through ${shell} and passes the arguments on`, async () => {
      const h = await home();
      const r = await runCommand(shell, ["-c", `curl -fsSL "${base}/good/install.sh" | ${shell} -s -- --yes --source "${f.mirrorUrl}"`], {
        env: homeEnv(h, { GENTLE_SHELL_SETUP_DOWNLOAD: `${base}/good`, SHELL: "/bin/bash" }),
        cwd: h,
      });
      expect(r.code, r.stdout + r.stderr).toBe(0);
      expect(r.stderr).toContain("gentle-shell-setup: downloading gentle-shell-setup-linux-x64");
      expect(r.stdout).toContain("Gentle Shell is installed: ~/.gentle-shell/bin/gentle-shell");
      const v = await runCommand(join(h, ".gentle-shell", "bin", "gentle-shell"), ["--version"], { env: homeEnv(h) });
      expect(v.stdout.split("\n")[0]).toBe(`gentle-shell ${latest.shell}`);
    });
  }

  it("refuses a binary that does not match SHA256SUMS and installs nothing", async () => {
    const h = await home();
    const r = await runCommand("sh", [script, "--yes", "--source", f.mirrorUrl], {
      env: homeEnv(h, { GENTLE_SHELL_SETUP_DOWNLOAD: `${base}/bad` }),
      cwd: h,
    });
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/gentle-shell-setup-linux-x64 does not match SHA256SUMS \(expected [0-9a-f]{64}, got [0-9a-f]{64}\); nothing was installed/);
    expect(await fs.readdir(h)).toEqual([".npmrc"]);
  });

  it("refuses a plain-http download folder that is not the loopback address", async () => {
    const h = await home();
    const r = await runCommand("sh", [script, "--yes"], { env: homeEnv(h, { GENTLE_SHELL_SETUP_DOWNLOAD: "http://mirror.example/dl" }), cwd: h });
    expect(r.code).toBe(1);
    expect(r.stderr).toContain("GENTLE_SHELL_SETUP_DOWNLOAD must be an https URL");
  });

  it("without a terminal, ends with the binary's own 'run again with --yes' sentence and exit code", async () => {
    const h = await home();
    const env = homeEnv(h, { GENTLE_SHELL_SETUP_DOWNLOAD: `${base}/good` });
    // Piped from curl, no --yes: standard input is the script and standard output a pipe, so nobody can be asked.
    const r = await runCommand("sh", ["-c", `curl -fsSL "${base}/good/install.sh" | sh -s -- --source "${f.mirrorUrl}"`], { env, cwd: h });
    // The binary itself, run the same way without the bootstrap.
    const direct = await runCommand(f.binary!, ["install", "--source", f.mirrorUrl], { env: homeEnv(h), cwd: h });
    const lastLine = (text: string) => text.trimEnd().split("\n").at(-1);
    expect(direct.code).not.toBe(0);
    expect(lastLine(direct.stderr)).toMatch(/run again with --yes/);
    expect(r.code, r.stdout + r.stderr).toBe(direct.code);
    expect(lastLine(r.stderr)).toBe(lastLine(direct.stderr));
    expect(r.stderr).toContain("gentle-shell-setup: downloading gentle-shell-setup-linux-x64");
    expect(await fs.readdir(h)).toEqual([".npmrc"]);
  });

  /** install.sh run with TMPDIR on a noexec tmpfs mounted for this run only. */
  function underNoexec(noexec: string, args: string[], env: NodeJS.ProcessEnv, cwd: string) {
    const mount = 'mount -t tmpfs -o noexec,size=4m tmpfs "$1" && shift && exec "$@"';
    return runCommand("unshare", ["--mount", "sh", "-c", mount, "sh", noexec, "sh", script, ...args], { env: { ...env, TMPDIR: noexec }, cwd });
  }

  it("falls back from a noexec temporary folder to the cache folder, runs the binary there and leaves nothing", async () => {
    const h = await home();
    const noexec = join(scratchDir("gss-noexec-"), "tmp");
    await fs.mkdir(noexec);
    const r = await underNoexec(noexec, ["--dry-run", "--source", f.mirrorUrl], homeEnv(h, { GENTLE_SHELL_SETUP_DOWNLOAD: `${base}/good` }), h);
    expect(r.code, r.stdout + r.stderr).toBe(4);
    expect(r.stderr).toContain(`gentle-shell-setup: ${noexec} does not let programs run (mounted noexec?); downloading into ${h}/.cache instead`);
    expect(r.stdout).toContain("Dry run: nothing was changed.");
    // The cache folder it made for the download is gone again.
    expect(await fs.readdir(h)).toEqual([".npmrc"]);
  });

  it("says so, and downloads nothing, when no temporary folder lets a program run", async () => {
    const h = await home();
    const noexec = join(scratchDir("gss-noexec-"), "tmp");
    await fs.mkdir(noexec);
    const env = homeEnv(h, { GENTLE_SHELL_SETUP_DOWNLOAD: `${base}/good`, XDG_CACHE_HOME: join(noexec, "cache") });
    const r = await underNoexec(noexec, ["--yes", "--source", f.mirrorUrl], env, h);
    expect(r.code).toBe(1);
    expect(r.stderr.trimEnd()).toBe(
      `gentle-shell-setup: no temporary folder lets a downloaded program run here (${noexec} is mounted noexec?); set TMPDIR to one that does and run this again`,
    );
    expect(await fs.readdir(h)).toEqual([".npmrc"]);
  });

  it("masks the credentials of GENTLE_SHELL_SETUP_DOWNLOAD in every message", async () => {
    const h = await home();
    const refused = await runCommand("sh", [script, "--yes"], {
      env: homeEnv(h, { GENTLE_SHELL_SETUP_DOWNLOAD: "http://alice:s3cr3t-pw@mirror.example/dl?access_token=t0k3n&os=any" }),
      cwd: h,
    });
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain("must be an https URL (got http://***@mirror.example/dl?access_token=***&os=any)");
    // Plain http to the loopback address only: here 127.0.0.1: is a user name and the host is mirror.example.
    const disguised = await runCommand("sh", [script, "--yes"], {
      env: homeEnv(h, { GENTLE_SHELL_SETUP_DOWNLOAD: "http://127.0.0.1:@mirror.example/dl" }),
      cwd: h,
    });
    expect(disguised.code).toBe(1);
    expect(disguised.stderr).toContain("must be an https URL (got http://***@mirror.example/dl)");
    // A closed loopback port: the download itself fails, and says where from, masked.
    const port = await freePort();
    const failed = await runCommand("sh", [script, "--yes"], {
      env: homeEnv(h, { GENTLE_SHELL_SETUP_DOWNLOAD: `https://alice:s3cr3t-pw@127.0.0.1:${port}/dl` }),
      cwd: h,
    });
    expect(failed.code).toBe(1);
    expect(failed.stderr).toContain(`could not download SHA256SUMS from https://***@127.0.0.1:${port}/dl`);
    for (const r of [refused, failed]) {
      expect(r.stdout + r.stderr).not.toContain("s3cr3t-pw");
      expect(r.stdout + r.stderr).not.toContain("t0k3n");
    }
  });

  it("masks a password and a query secret whatever they hold, reading the URL's host part to its last @ (issue 39)", async () => {
    const h = await home();
    const port = await freePort();
    for (const c of ["@", "@@", '"', "'", " ", "<>", "%40", "#", "/", "?"]) {
      const download = `https://alice:Kq7w${c}Vz3x@127.0.0.1:${port}/dl?page=2&access_token=Kq7w${c === "#" ? "" : c}Vz3x#part`;
      const r = await runCommand("sh", [script, "--yes"], { env: homeEnv(h, { GENTLE_SHELL_SETUP_DOWNLOAD: download }), cwd: h });
      expect(r.code, c).toBe(1);
      expect(r.stderr, c).toContain(`could not download SHA256SUMS from https://***@127.0.0.1:${port}/dl?page=2&access_token=***#part`);
      for (const piece of ["Kq7w", "Vz3x"]) expect(r.stdout + r.stderr, c).not.toContain(piece);
    }
    // Refused plain http is named masked the same way.
    const refused = await runCommand("sh", [script, "--yes"], {
      env: homeEnv(h, { GENTLE_SHELL_SETUP_DOWNLOAD: "http://alice:Kq7w@Vz3x@mirror.example/dl" }),
      cwd: h,
    });
    expect(refused.stderr).toContain("must be an https URL (got http://***@mirror.example/dl)");
  });

  it("sends Windows users to install.ps1 from the same download folder", async () => {
    const h = await home();
    // Git Bash's and MSYS2's uname, the only Windows part here.
    const bin = join(scratchDir("gss-uname-"), "bin");
    await fs.mkdir(bin);
    await fs.writeFile(join(bin, "uname"), "#!/bin/sh\ncase $1 in -s) echo MINGW64_NT-10.0-26100 ;; *) echo x86_64 ;; esac\n", { mode: 0o755 });
    const r = await runCommand("sh", [script, "--yes"], { env: homeEnv(h, { PATH: `${bin}:${process.env.PATH}` }), cwd: h });
    expect(r.code).toBe(1);
    expect(r.stderr.trimEnd()).toBe(
      "gentle-shell-setup: this installer is for macOS and Linux; on Windows, run this in PowerShell instead: irm https://github.com/Gentleman-Programming/gentle-shell-setup/releases/latest/download/install.ps1 | iex",
    );
    await expect(fs.stat(join(REPO_ROOT, "installers", "install.ps1"))).resolves.toBeTruthy();
  });

  it("says so when the download folder lacks the binary", async () => {
    const h = await home();
    const r = await runCommand("sh", [script, "--yes"], { env: homeEnv(h, { GENTLE_SHELL_SETUP_DOWNLOAD: `${base}/missing` }), cwd: h });
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(`could not download SHA256SUMS from ${base}/missing`);
  });
});
