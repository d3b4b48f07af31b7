/**
 * The startup offer for a user on npm's default registry (issue 11, Startup
 * offer fixes): no npm settings name a registry, so the offer asks the
 * registry our npm reports, as the install and upgrade do. "npm's default"
 * is set in npm's own built-in config (npmrc in npm's folder inside the
 * prefix's runtime), which real npm 11.19.0 reads below every other config,
 * so no registry's host name is written anywhere. The offer records npm's
 * answer and asks npm again only when what it depends on changes; the
 * install records it too, so even the first launch does not start npm.
 */
import { describe, expect, it } from "vitest";
import { promises as fs } from "node:fs";
import { join } from "pathe";
import { fixtures } from "../support/context";
import { installed, runInstall } from "../support/installed";
import { writeStubModelConfig } from "../support/stub-model";
import { offerOn } from "../support/offer";
import { Terminal } from "../support/tmux";
import { homeEnv } from "../support/fixtures";

/** The launcher in a 120x40 terminal, with memory off by the user's policy (no shared Engram server is started). */
function openShell(home: string, gs: string): Promise<Terminal> {
  const env = homeEnv(home, { PATH: "/usr/bin:/bin", ENGRAM_STARTUP_POLICY: "disabled" });
  return Terminal.open({ command: [gs], cwd: home, env, columns: 120, rows: 40 });
}

const f = fixtures();
const [older, latest] = [f.releases[0]!, f.releases[f.releases.length - 1]!];

const offered = (s: string) => s.includes(`Gentle Shell ${latest.shell} is available (you have ${older.shell}).`);
/** Pi's idle editor: a plain upper border of 20 or more ─ (the panel's own border is told apart by its text). */
const piOpen = (s: string) => /─{20,}/.test(s) && !offered(s);

/** `path` replaced by a new file with its mode, not written through: a copy's runtime files are hard links to the shared install's. */
async function replaceFile(path: string, text: string): Promise<void> {
  const { mode } = await fs.stat(path);
  await fs.rm(path);
  await fs.writeFile(path, text, { mode: mode & 0o777 });
}

describe("the startup offer with npm's default registry", () => {
  it("offers the newer release from the registry npm reports, then reuses npm's answer until npm's config changes", async () => {
    const i = await installed(f, { release: older.shell });
    await writeStubModelConfig(join(i.prefix, "agent"), `${f.modelUrl}/v1`);
    const npmDir = join(i.prefix, "runtime", "node-24.21.0", "lib", "node_modules", "npm");
    const builtin = join(npmDir, "npmrc");
    // No npm settings of the user's name a registry: only npm's built-in config does.
    await fs.writeFile(join(i.prefix, "pnpm", "config", "npmrc"), "");
    await expect(fs.stat(join(i.prefix, "npm", "npmrc"))).rejects.toThrow();
    await fs.writeFile(builtin, `registry=${f.registryUrl}\n`);
    const record = join(i.prefix, "npm", "registry.json");
    await expect(fs.stat(record)).rejects.toThrow();

    const first = await openShell(i.home, i.gs);
    await offerOn(first, "the offer", { offered, piOpen });
    await first.keys("Escape");
    await first.waitFor(piOpen, "Pi's editor");
    await first.close();
    expect(JSON.parse(await fs.readFile(record, "utf8")).registry).toBe(f.registryUrl);
    expect((await fs.stat(record)).mode & 0o777).toBe(0o600);

    // npm is not asked again while nothing it reads changed: with npm broken, the offer still comes.
    await replaceFile(join(npmDir, "bin", "npm-cli.js"), "process.exit(1);\n");
    const second = await openShell(i.home, i.gs);
    await offerOn(second, "the offer from the recorded registry", { offered, piOpen });
    await second.keys("Escape");
    await second.waitFor(piOpen, "Pi's editor");
    await second.close();

    // A change to npm's config makes the record stale: npm is asked again, fails, and Pi opens without an offer.
    await fs.writeFile(builtin, `; changed\nregistry=${f.registryUrl}\n`);
    const third = await openShell(i.home, i.gs);
    const screen = await third.waitFor(piOpen, "Pi's editor without an offer");
    expect(offered(screen)).toBe(false);
    await third.close();
  });

  it("an install records the registry npm reports, so the first launch's offer does not start npm", async () => {
    const i = await installed(f, { release: older.shell, extra: ["--no-setup"] });
    await writeStubModelConfig(join(i.prefix, "agent"), `${f.modelUrl}/v1`);
    const npmDir = join(i.prefix, "runtime", "node-24.21.0", "lib", "node_modules", "npm");
    const record = join(i.prefix, "npm", "registry.json");
    // The user's npm settings name the registry: nothing to record, the offer reads it from them.
    await expect(fs.stat(record)).rejects.toThrow();

    // Now only npm's built-in config names it, and the installer runs again (the runtime and the version are reused).
    await fs.writeFile(join(npmDir, "npmrc"), `registry=${f.registryUrl}\n`);
    const again = await runInstall(f, i.home, ["--release", older.shell, "--no-setup"], { npmrc: [] });
    expect(again.code, again.stdout + again.stderr).toBe(0);
    expect(await fs.readFile(join(i.prefix, "pnpm", "config", "npmrc"), "utf8")).toBe("");
    expect(JSON.parse(await fs.readFile(record, "utf8"))).toEqual({ fingerprint: expect.stringMatching(/^[0-9a-f]{64}$/), registry: f.registryUrl });
    expect((await fs.stat(record)).mode & 0o777).toBe(0o600);

    // The first interactive launch would also install the memory companion once, with our npm: that is not
    // this test's subject, so its one attempt is recorded as made (config/companion.json, as the launcher writes it).
    await fs.writeFile(join(i.prefix, "config", "companion.json"), `${JSON.stringify({ schema: 1, status: "failed", reason: "not this test's subject" })}\n`, {
      mode: 0o600,
    });
    // npm, from here on, only leaves a trace when it is started (its path and version, which the record depends on, unchanged).
    const trace = join(i.root, "npm-started");
    await replaceFile(join(npmDir, "bin", "npm-cli.js"), `require("node:fs").appendFileSync(${JSON.stringify(trace)}, "started\\n");\nprocess.exit(1);\n`);
    const first = await openShell(i.home, i.gs);
    await offerOn(first, "the offer from the install's record", { offered, piOpen });
    await first.keys("Escape");
    await first.waitFor(piOpen, "Pi's editor");
    await first.close();
    await expect(fs.stat(trace)).rejects.toThrow();

    // The trace does show a start: with npm's config changed, the record is stale and the launch starts npm.
    await fs.writeFile(join(npmDir, "npmrc"), `; changed\nregistry=${f.registryUrl}\n`);
    const second = await openShell(i.home, i.gs);
    expect(offered(await second.waitFor(piOpen, "Pi's editor without an offer"))).toBe(false);
    await second.close();
    expect(await fs.readFile(trace, "utf8")).toBe("started\n");
  });
});
