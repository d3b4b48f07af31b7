/**
 * A full disk (issue 14): the fixture installer in a HOME that is a small
 * tmpfs, real ENOSPC from the kernel at three points.
 * - Before the first download: the plan states the space the pins know of,
 *   and the install stops with both numbers, having downloaded nothing.
 * - While Node's archive is unpacked: the runtime step stops at once, naming
 *   the folder, what is free and what is needed; no staging folder, download
 *   or unmarked runtime is left.
 * - While pnpm installs the version: pnpm is ended at its first ENOSPC, never
 *   retrying after its 10-second waits; no version folder is left, the
 *   runtimes stay for the next run, and pnpm's store, which no version uses,
 *   is given back.
 * Mounting needs root (CI runs .ci/run under sudo); each tmpfs is unmounted
 * when the file ends.
 */
import { afterAll, describe, expect, it } from "vitest";
import { registryLine, writeNpmrc } from "../support/npmrc";
import { execFileSync } from "node:child_process";
import { existsSync, promises as fs, statfsSync } from "node:fs";
import { join } from "pathe";
import { fixtures } from "../support/context";
import { runInstall } from "../support/installed";
import { scratchDir } from "../support/scratch";

const f = fixtures();
const MiB = 1024 * 1024;
const nodeArchive = f.pins.node.archives["linux-x64"]!.size!;
const mounted: string[] = [];

afterAll(() => {
  for (const dir of mounted.splice(0)) execFileSync("umount", ["-l", dir]);
});

/** A HOME of `bytes` on its own tmpfs, holding only the .npmrc naming the fixture registry. */
async function smallHome(bytes: number): Promise<string> {
  const home = join(scratchDir("gss-disk-"), "home");
  await fs.mkdir(home);
  execFileSync("mount", ["-t", "tmpfs", "-o", `size=${Math.ceil(bytes / MiB)}m,mode=0755`, "tmpfs", home]);
  mounted.push(home);
  await writeNpmrc(home, [registryLine(f.registryUrl)]);
  return home;
}

const free = (home: string) => {
  const s = statfsSync(home);
  return s.bavail * s.bsize;
};
const entries = async (dir: string) => (await fs.readdir(dir).catch(() => [] as string[])).sort();
const mb = (text: string) => Number(text.replace(/ MB$/, "")) * 1_000_000;

describe("an install on a full disk", () => {
  it("stops before the first download with what is free and what is needed, when the pins show it cannot fit", async () => {
    const home = await smallHome(nodeArchive);
    const result = await runInstall(f, home, ["--no-setup", "--verbose"], { cwd: "/" });
    const out = result.stdout + result.stderr;
    expect(result.code).toBe(1);
    const plan = out.match(
      /Space: at least (\d+(?:\.\d)? MB) \(Node 24\.21\.0\), plus .*the release's packages, whose size is not known in advance, on the disk of ~\/\.gentle-shell; (\d+(?:\.\d)? MB) free there\./,
    );
    expect(plan, out).not.toBeNull();
    const stop = out.match(
      /✖ runtime failed: There is not enough space for Gentle Shell in ~\/\.gentle-shell: (\d+(?:\.\d)? MB) free, at least (\d+(?:\.\d)? MB) needed \(Node 24\.21\.0 [^)]*\); nothing was downloaded, so free some space and run the installer again\./,
    );
    expect(stop, out).not.toBeNull();
    expect(mb(stop![1]!)).toBeLessThan(mb(stop![2]!));
    expect(stop![2]).toBe(plan![1]);
    // Node's archive alone, and as much again unpacked.
    expect(mb(stop![2]!)).toBeGreaterThanOrEqual(Math.floor((2 * nodeArchive) / 1_000_000) * 1_000_000);
    expect(out).not.toContain("downloading Node");
    expect(await entries(join(home, ".gentle-shell", "runtime"))).toEqual([]);
  });

  it("ends the runtime step at once when unpacking Node fills the disk, leaving no staging, download or unmarked runtime", async () => {
    // More than the pins' need (the archive twice), less than the archive and Node unpacked.
    const home = await smallHome(2 * nodeArchive + 16 * MiB);
    const before = free(home);
    const result = await runInstall(f, home, ["--no-setup", "--verbose"], { cwd: "/" });
    const out = result.stdout + result.stderr;
    expect(result.code).toBe(1);
    expect(out).toMatch(/Node 24\.21\.0 \(linux-x64\): [\d.]+ MiB verified/);
    const line = out.match(
      /✖ runtime failed: The disk holding ~\/\.gentle-shell is full: the runtime step stopped at once and removed what it left unfinished, (\d+(?:\.\d)? MB) is free now, and the install needs more than the (\d+(?:\.\d)? MB) that were free when it began, so free some space and run the installer again\./,
    );
    expect(line, out).not.toBeNull();
    expect(out).not.toMatch(/ENOSPC|no space left/i);
    expect(await entries(join(home, ".gentle-shell", "runtime"))).toEqual([]);
    expect(existsSync(join(home, ".gentle-shell", "tmp"))).toBe(false);
    // Given back: no more than the small files of the claim and the npm settings are left.
    expect(before - free(home)).toBeLessThan(MiB);
  });

  it("ends pnpm at its first ENOSPC, removes the version folder and the unused store, and keeps the runtimes", async () => {
    // The runtimes fit (about 160 MiB installed, 205 MiB while Node unpacks); the version's packages do not.
    const home = await smallHome(230 * MiB);
    const result = await runInstall(f, home, ["--no-setup", "--verbose"], { cwd: "/" });
    const out = result.stdout + result.stderr;
    expect(result.code).toBe(1);
    expect(out).toMatch(/✔ runtime: Node 24\.21\.0 installed, pnpm 11\.1\.1 installed/);
    expect(out).toMatch(
      /✖ version failed: The disk holding ~\/\.gentle-shell is full: the version step stopped at once and removed what it left unfinished, \d+(?:\.\d)? MB is free now, and the install needs more than the \d+(?:\.\d)? MB that were free when it began, so free some space and run the installer again\./,
    );
    // pnpm (echoed by --verbose) met the full disk and was ended before any retry of it.
    expect(out).toContain("ERR_PNPM_ENOSPC");
    expect(out).not.toMatch(/[01] retries left/);
    const prefix = join(home, ".gentle-shell");
    expect(await entries(join(prefix, "versions"))).toEqual([]);
    expect(existsSync(join(prefix, "pnpm", "store"))).toBe(false);
    expect(await entries(join(prefix, "runtime"))).toEqual(["node-24.21.0", "pnpm-11.1.1"]);
    for (const runtime of ["node-24.21.0", "pnpm-11.1.1"]) expect(existsSync(join(prefix, "runtime", runtime, ".gentle-shell-runtime"))).toBe(true);
    expect(existsSync(join(prefix, "current"))).toBe(false);
    expect(existsSync(join(prefix, "bin"))).toBe(false);
  });
});
