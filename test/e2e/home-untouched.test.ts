/**
 * Our npm writes nothing into the user's HOME (issue 39, defect 5; spec:
 * "Your own node, npm, pnpm, Pi and ~/.npmrc are not changed"; "Self-uninstall").
 * With a ~/.npmrc that names no registry, the install asks our npm which
 * registry its settings name (`npm config get registry`); npm's default is
 * stood in for by the fixture registry in the prefix's npm and pnpm config
 * files, so no registry's host name is written here. Before, that npm ran
 * with the user's HOME and left ~/.npm/_logs/<time>-debug-0.log behind, even
 * when the install then failed, so HOME was no longer what it was after
 * self-uninstall either. Now HOME holds what it held plus ~/.gentle-shell and
 * the PATH line, and self-uninstall leaves it byte for byte as it was.
 */
import { describe, expect, it } from "vitest";
import { createHash } from "node:crypto";
import { promises as fs } from "node:fs";
import { join } from "node:path";
import { fixtures } from "../support/context";
import { homeEnv } from "../support/fixtures";
import { runInstall } from "../support/installed";
import { registryLine, writeNpmrc } from "../support/npmrc";
import { runCommand } from "../support/proc";
import { scratchDir } from "../support/scratch";

const f = fixtures();

/** Every entry under `home` but ~/.gentle-shell, with its kind and its bytes' hash (or a link's target). */
async function picture(home: string): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  const walk = async (dir: string, rel: string) => {
    for (const name of (await fs.readdir(dir)).sort()) {
      const r = rel ? `${rel}/${name}` : name;
      if (r === ".gentle-shell") continue;
      const path = join(dir, name);
      const stat = await fs.lstat(path);
      if (stat.isSymbolicLink()) out[r] = `link ${await fs.readlink(path)}`;
      else if (stat.isDirectory()) {
        out[r] = `folder ${(stat.mode & 0o777).toString(8)}`;
        await walk(path, r);
      } else
        out[r] = `file ${(stat.mode & 0o777).toString(8)} ${createHash("sha256")
          .update(await fs.readFile(path))
          .digest("hex")}`;
    }
  };
  await walk(home, "");
  return out;
}

/**
 * A HOME whose ~/.npmrc names no registry, with a ~/.bashrc of its own, and
 * a prefix whose npm global config names `npmRegistry` (our npm's default, as
 * far as it can tell) and whose pnpm auth.ini names the fixture registry.
 */
async function homeOnNpmsDefault(npmRegistry: string): Promise<{ home: string; prefix: string }> {
  const home = join(scratchDir("gss-e2e-"), "home");
  const prefix = join(home, ".gentle-shell");
  await fs.mkdir(join(prefix, "npm"), { recursive: true, mode: 0o700 });
  await fs.chmod(prefix, 0o700);
  await fs.writeFile(join(prefix, "npm", "npmrc"), `${registryLine(npmRegistry)}\n`, { mode: 0o600 });
  await fs.mkdir(join(prefix, "pnpm", "config", "pnpm"), { recursive: true, mode: 0o700 });
  await fs.writeFile(join(prefix, "pnpm", "config", "pnpm", "auth.ini"), `${registryLine(f.registryUrl)}\n`, { mode: 0o600 });
  await fs.writeFile(join(home, ".bashrc"), "# the user's own\n");
  return { home, prefix };
}

const npmrc = ["fund=false"];

describe("our npm and the user's HOME", () => {
  it("an install on npm's default registry leaves no ~/.npm, only ~/.gentle-shell and the PATH line; self-uninstall (with the agent home) leaves HOME as it was", async () => {
    const { home, prefix } = await homeOnNpmsDefault(f.registryUrl);
    await writeNpmrc(home, npmrc);
    const before = await picture(home);

    const r = await runInstall(f, home, [], { npmrc });
    expect(r.code, r.stdout + r.stderr).toBe(0);
    // Our npm was asked (it named the registry pnpm then used), and recorded its answer in the prefix.
    expect(JSON.parse(await fs.readFile(join(prefix, "npm", "registry.json"), "utf8")).registry).toBe(f.registryUrl);
    await expect(fs.lstat(join(home, ".npm"))).rejects.toMatchObject({ code: "ENOENT" });
    const after = await picture(home);
    // The one change outside the prefix: ~/.bashrc gained the PATH line.
    expect({ ...after, ".bashrc": before[".bashrc"] }).toEqual(before);
    expect(after[".bashrc"]).not.toBe(before[".bashrc"]);

    const u = await runCommand(join(prefix, "bin", "gentle-shell"), ["self-uninstall", "--yes", "--include-shared"], { env: homeEnv(home), cwd: home });
    expect(u.code, u.stdout + u.stderr).toBe(0);
    await expect(fs.lstat(prefix)).rejects.toMatchObject({ code: "ENOENT" });
    expect(await picture(home)).toEqual(before);
  });

  it("an install that fails after our npm was asked leaves no ~/.npm either", async () => {
    // npm's answer is no registry at all, so the install stops at the version step, after npm ran.
    const { home } = await homeOnNpmsDefault("not-a-url");
    await writeNpmrc(home, npmrc);
    const before = await picture(home);
    const r = await runInstall(f, home, [], { npmrc });
    expect(r.code, r.stdout + r.stderr).toBe(1);
    expect(r.stdout).toContain("✖ version failed: npm did not report a registry");
    await expect(fs.lstat(join(home, ".npm"))).rejects.toMatchObject({ code: "ENOENT" });
    expect(await picture(home)).toEqual(before);
  });
});
