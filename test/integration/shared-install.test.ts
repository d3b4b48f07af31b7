/**
 * The run's shared install (support/shared-install.ts), which most e2e files
 * get their install from: a copy is a working install of its own, nothing in
 * it names the template or another copy, and what a test does to its copy
 * reaches no other.
 */
import { describe, expect, it } from "vitest";
import { promises as fs } from "node:fs";
import { dirname, join } from "node:path";
import { fixtures } from "../support/context";
import { installed } from "../support/installed";
import { runCommand } from "../support/proc";
import { pathsHolding } from "../support/shared-install";
import { SHARED_ROOT_PREFIX } from "../support/shared-install-root";

const f = fixtures();
const latest = f.releases[f.releases.length - 1]!;

/** Every file and link under `root` whose bytes or target hold `text`. */
async function naming(root: string, text: string): Promise<string[]> {
  const { files, links } = await pathsHolding(root, text);
  return [...files, ...links];
}

describe("a copy of the run's shared install", () => {
  it("is a working install at its own path that names no other copy, and a change to one copy reaches no other", async () => {
    const [a, b] = await Promise.all([installed(f), installed(f)]);
    expect(a.root).not.toBe(b.root);
    expect(a.output).toContain("Gentle Shell is installed");
    expect(a.output).not.toContain(b.root);

    // Each launcher answers from its own prefix.
    for (const i of [a, b]) {
      const r = await runCommand(i.gs, ["--version"], { env: i.env, cwd: i.home });
      expect(r.code, r.stdout + r.stderr).toBe(0);
      expect(r.stdout.split("\n").slice(0, 2)).toEqual([`gentle-shell ${latest.shell}`, `pi ${latest.pi}`]);
      expect(await fs.readFile(join(i.prefix, "bin", "gentle-shell"), "utf8")).toContain(i.prefix);
    }

    // The relocation is whole: every file or link of a copy that names a shared root (the template's, another
    // copy's: all are <tmp>/gss-installed-XXXXXX) names its own, and the launcher and pnpm's shims are among them.
    for (const i of [a, b]) {
      const own = await naming(i.root, i.root);
      expect(own).toContain(join("home", ".gentle-shell", "bin", "gentle-shell"));
      expect(own.some((file) => file.includes(join("node_modules", ".bin")))).toBe(true);
      expect((await naming(i.root, join(dirname(i.root), SHARED_ROOT_PREFIX))).sort()).toEqual(own.sort());
    }

    // Independent: breaking one copy leaves the other working.
    await fs.rm(join(a.prefix, "current"), { force: true, recursive: true });
    const broken = await runCommand(a.gs, ["--version"], { env: a.env, cwd: a.home });
    expect(broken.code).not.toBe(0);
    const still = await runCommand(b.gs, ["--version"], { env: b.env, cwd: b.home });
    expect(still.code, still.stderr).toBe(0);
  });
});
