/**
 * A HOME whose name holds a backslash or a newline (issue 39, defect 4; spec:
 * "Layout": the prefix is ~/.gentle-shell). On POSIX a backslash is an
 * ordinary filename character, as in a HOME named after DOMAIN\user, so the
 * prefix is <HOME>/.gentle-shell exactly. Before, a HOME ending in `hb\x`
 * installed into the sibling folder hb/x/.gentle-shell and never read the
 * user's .npmrc, since pathe turns `\` into `/`. Node, though, loads no
 * package from a folder whose path holds a backslash (npm itself fails there
 * with ERR_INVALID_MODULE_SPECIFIER), so that install is refused in one
 * sentence before anything is written. A newline is fine for Node: that
 * install goes into <HOME>/.gentle-shell with the settings of that HOME's
 * .npmrc. Paths here are built with node:path for the same reason.
 */
import { describe, expect, it } from "vitest";
import { promises as fs } from "node:fs";
import { join } from "node:path";
import { fixtures } from "../support/context";
import { homeEnv } from "../support/fixtures";
import { runInstall } from "../support/installed";
import { registryLine } from "../support/npmrc";
import { type RunResult, runCommand } from "../support/proc";
import { scratchDir } from "../support/scratch";

const f = fixtures();
const latest = f.releases[f.releases.length - 1]!;
const npmrc = [registryLine(f.registryUrl), "//127.0.0.1/:_authToken=${GSS_TEST_TOKEN}"];

/** The install went into <HOME>/.gentle-shell and nowhere else, with the settings of that HOME's .npmrc, and its launcher runs. */
async function installedExactly(parent: string, home: string, r: RunResult) {
  expect(r.code, r.stdout + r.stderr).toBe(0);
  expect(r.stdout).toContain("Gentle Shell is installed: ~/.gentle-shell/bin/gentle-shell");
  // Nothing beside the home (no hb/ holding x/.gentle-shell).
  expect(await fs.readdir(parent)).toEqual([home.slice(parent.length + 1)]);
  const prefix = join(home, ".gentle-shell");
  expect((await fs.lstat(prefix)).isDirectory()).toBe(true);
  expect(await fs.readlink(join(prefix, "current"))).toBe(`versions/${latest.id}`);
  // The user's .npmrc was read: its registry and auth lines, verbatim, are pnpm's.
  expect(await fs.readFile(join(prefix, "pnpm", "config", "npmrc"), "utf8")).toBe(`${npmrc.join("\n")}\n`);
  const v = await runCommand(join(prefix, "bin", "gentle-shell"), ["--version"], { env: homeEnv(home) });
  expect(v.code, v.stderr).toBe(0);
  expect(v.stdout.split("\n")[0]).toBe(`gentle-shell ${latest.shell}`);
}

describe("a HOME whose last part holds a backslash (hb\\x)", () => {
  it("is refused in one sentence naming <HOME>/.gentle-shell, before anything is written, here or in a sibling folder", async () => {
    const parent = scratchDir("gss-e2e-");
    const home = join(parent, "hb\\x");
    for (const args of [[], ["--dry-run"]]) {
      const r = await runInstall(f, home, args, { npmrc });
      expect(r.code, r.stdout + r.stderr).toBe(1);
      expect(r.stdout).toBe("");
      expect(r.stderr.trim()).toBe(
        `gentle-shell-setup: the Gentle Shell folder ${home}/.gentle-shell holds a backslash (\\) in its path, and Node cannot load packages from such a folder; run the installer with HOME set to a folder whose path has none; nothing was changed`,
      );
    }
    // No hb/ holding x/.gentle-shell, and nothing but the user's .npmrc in the home.
    expect(await fs.readdir(parent)).toEqual(["hb\\x"]);
    expect(await fs.readdir(home)).toEqual([".npmrc"]);
  });
});

describe("a HOME whose last part holds a newline", () => {
  it("installs into <HOME>/.gentle-shell exactly and reads that HOME's .npmrc (on PATH through the ~/.local/bin link)", async () => {
    const parent = scratchDir("gss-e2e-");
    const home = join(parent, "new\nline");
    // A profile line cannot hold the folder's name (the PATH step says so); the ~/.local/bin link can.
    const localBin = join(home, ".local", "bin");
    await fs.mkdir(localBin, { recursive: true });
    const r = await runInstall(f, home, [], { npmrc, env: { GSS_TEST_TOKEN: "x", PATH: `${localBin}:${process.env.PATH}` } });
    await installedExactly(parent, home, r);
    expect(await fs.readlink(join(localBin, "gentle-shell"))).toBe(join(home, ".gentle-shell", "bin", "gentle-shell"));
  });
});
