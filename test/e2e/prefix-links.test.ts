/**
 * Links inside the prefix (issue 14, Careful writes and removals), through
 * the real fixture installer: a link at pnpm/store/, bin/, config/, gentle-ai/
 * or config/gentle-ai/ is refused with a sentence naming it, and what it points
 * to is never written; a link at tmp/ is kept at the end of the install, its
 * target untouched. One HOME, installed once, then each link in turn.
 */
import { describe, expect, it } from "vitest";
import { existsSync, promises as fs } from "node:fs";
import { join } from "pathe";
import { fixtures } from "../support/context";
import { homeEnv } from "../support/fixtures";
import { runInstall } from "../support/installed";
import { runCommand } from "../support/proc";
import { scratchDir } from "../support/scratch";

const f = fixtures();
const root = scratchDir("gss-links-");
const home = join(root, "home");
const prefix = join(home, ".gentle-shell");
const env = homeEnv(home, { SHELL: "/bin/bash" });

/** A folder outside the prefix holding one file of the user's; `untouched` checks nothing else appeared. */
async function target(name: string) {
  const dir = join(root, name);
  await fs.mkdir(dir);
  await fs.writeFile(join(dir, "keep.txt"), "the user's\n");
  return { dir, untouched: async () => expect(await fs.readdir(dir)).toEqual(["keep.txt"]) };
}

describe("links inside the prefix", () => {
  it("refuses a linked pnpm/store/ and bin/ with a sentence, writes nothing into their targets, and keeps a linked tmp/ and its target", async () => {
    await fs.mkdir(join(prefix, "pnpm"), { recursive: true, mode: 0o700 });
    const store = await target("store-target");
    const bin = await target("bin-target");
    const tmp = await target("tmp-target");
    await fs.symlink(store.dir, join(prefix, "pnpm", "store"));
    await fs.symlink(tmp.dir, join(prefix, "tmp"));
    // pnpm would write its store through the link: the version step refuses before pnpm runs.
    const noStore = await runInstall(f, home, ["--no-setup"]);
    expect(noStore.code).toBe(1);
    expect(noStore.stdout).toContain("✖ version failed: ~/.gentle-shell/pnpm/store is a link, not a folder of Gentle Shell's; nothing was written through it.");
    await store.untouched();
    await fs.unlink(join(prefix, "pnpm", "store"));

    await fs.symlink(bin.dir, join(prefix, "bin"));
    const refused = await runInstall(f, home, ["--no-setup"]);
    expect(refused.code).toBe(1);
    expect(refused.stdout).toContain(
      "✖ launcher failed: ~/.gentle-shell/bin is a link, not a folder of Gentle Shell's; nothing was written through it. Move it away, then run the installer again.",
    );
    await bin.untouched();
    expect((await fs.lstat(join(prefix, "tmp"))).isSymbolicLink()).toBe(true);
    await tmp.untouched();

    // With bin/ a folder again the install passes; the link at tmp/ still stands, its target as it was.
    await fs.unlink(join(prefix, "bin"));
    const passed = await runInstall(f, home, ["--no-setup"]);
    expect(passed.stdout).toContain("Gentle Shell is installed");
    expect(passed.code).toBe(0);
    expect((await fs.lstat(join(prefix, "tmp"))).isSymbolicLink()).toBe(true);
    await tmp.untouched();
    await bin.untouched();
    await store.untouched();
  });

  for (const rel of ["gentle-ai", "config/gentle-ai"]) {
    it(`gentle-shell setup refuses a linked ${rel}/ with a sentence and writes nothing into its target`, async () => {
      expect(existsSync(join(prefix, "bin", "gentle-shell"))).toBe(true);
      const t = await target(`${rel.replace("/", "-")}-target`);
      const link = join(prefix, rel);
      await fs.rm(link, { recursive: true, force: true });
      await fs.mkdir(join(link, ".."), { recursive: true });
      await fs.symlink(t.dir, link);
      const r = await runCommand(join(prefix, "bin", "gentle-shell"), ["setup"], { env, cwd: home });
      expect(r.code).not.toBe(0);
      expect(r.stdout + r.stderr).toContain(`~/.gentle-shell/${rel} is a link, not a folder of Gentle Shell's; nothing was written through it`);
      await t.untouched();
      await fs.unlink(link);
    });
  }

  it("the installer refuses a linked config/ with a sentence and writes nothing into its target", async () => {
    const t = await target("config-target");
    const config = join(prefix, "config");
    await fs.rm(config, { recursive: true, force: true });
    await fs.symlink(t.dir, config);
    const r = await runInstall(f, home, ["--no-setup"]);
    expect(r.code).not.toBe(0);
    // Met when the install records its source there, after its steps: one sentence, no stack.
    expect(r.stdout + r.stderr).toContain(`${config} is a link, not a folder of Gentle Shell's; nothing was written through it`);
    expect(r.stdout + r.stderr).not.toMatch(/\n\s+at /);
    await t.untouched();
  });
});
