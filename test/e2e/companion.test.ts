/**
 * The gentle-engram companion (spec: "Engram startup safety", Recovery and
 * setup) through the installed launcher, with the real pinned Pi and its own
 * package manager on our Node and npm, against the fixture gentle-engram in
 * the fixtures' verdaccio (test/support/gentle-engram.ts: 0.4.2, 0.5.0 as
 * `latest`, and 0.6.0-nopolicy.0 without engram.startupPolicy under the tag
 * `nopolicy`). Its extension records the ENGRAM_* variables it got, which
 * shows Pi loaded it. Interactive launches run in a real terminal (tmux),
 * with memory off by the user's policy so no Pi of a test starts the shared
 * server on this machine's 127.0.0.1:7437; they are online (an offline
 * launch never installs a companion).
 */
import { existsSync, promises as fs } from "node:fs";
import { join } from "pathe";
import { describe, expect, it } from "vitest";
import { fixtures } from "../support/context";
import { readGentleEngramRecord } from "../support/gentle-engram";
import { GENTLE_PI_MARKER } from "../support/gentle-pi";
import { installed, type Installed } from "../support/installed";
import { runCommand } from "../support/proc";
import { writeStubModelConfig } from "../support/stub-model";
import { Terminal } from "../support/tmux";

const f = fixtures();

async function home(): Promise<Installed> {
  const i = await installed(f);
  await writeStubModelConfig(join(i.prefix, "agent"), `${f.modelUrl}/v1`);
  return i;
}

const userEnv = (i: Installed, extra: NodeJS.ProcessEnv = {}) => ({
  ...i.env,
  TERM: "xterm-256color",
  PATH: "/usr/bin:/bin",
  ENGRAM_STARTUP_POLICY: "disabled",
  PI_TELEMETRY: "0",
  PI_SKIP_VERSION_CHECK: "1",
  ...extra,
});
const agent = (i: Installed) => join(i.prefix, "agent");
const settingsFile = (i: Installed) => join(agent(i), "settings.json");
const packages = async (i: Installed) => (JSON.parse(await fs.readFile(settingsFile(i), "utf8")) as { packages?: unknown[] }).packages;
const installedVersion = async (i: Installed) =>
  JSON.parse(await fs.readFile(join(agent(i), "npm", "node_modules", "gentle-engram", "package.json"), "utf8")).version as string;
const record = async (i: Installed) => JSON.parse(await fs.readFile(join(i.prefix, "config", "companion.json"), "utf8"));
const setPackages = async (i: Installed, list: unknown[]) => {
  const settings = JSON.parse(await fs.readFile(settingsFile(i), "utf8"));
  await fs.writeFile(settingsFile(i), `${JSON.stringify({ ...settings, packages: list }, null, 2)}\n`);
};

/**
 * `gentle-shell <args>` in a terminal until Pi shows its idle editor with
 * gentle-pi loaded (and the companion, when `companion`); returns what the
 * launcher wrote to stderr.
 */
async function interactive(i: Installed, o: { companion: boolean; extra?: NodeJS.ProcessEnv }): Promise<string> {
  const loaded = [join(agent(i), GENTLE_PI_MARKER), ...(o.companion ? [join(agent(i), "gentle-engram-fixture.json")] : [])];
  for (const file of loaded) await fs.rm(file, { force: true });
  const stderr = join(i.root, `stderr-${Date.now()}`);
  const t = await Terminal.open({
    command: ["sh", "-c", 'exec "$0" 2>"$GSS_STDERR"', i.gs],
    cwd: i.home,
    env: userEnv(i, { ...o.extra, GSS_STDERR: stderr }),
    columns: 120,
    rows: 40,
  });
  try {
    await t.waitFor((s) => /─{20,}/.test(s) && loaded.every((file) => existsSync(file)), "Pi's editor with its packages loaded");
    await t.waitForPi("idle");
  } finally {
    await t.close();
  }
  return fs.readFile(stderr, "utf8");
}

describe("the gentle-engram companion", { timeout: 480_000 }, () => {
  it("is installed once when missing, on the first interactive launch only, and checked; Pi gets the guard", async () => {
    const i = await home();
    // No companion work for --version, help, a Pi subcommand or print mode, in a terminal or not.
    for (const args of [["--version"], ["--help"], ["list"], ["-p", "say hi"]]) {
      const r = await runCommand(i.gs, args, { env: userEnv(i), cwd: i.home });
      expect(r.stderr, JSON.stringify(args)).not.toContain("gentle-engram");
    }
    const t = await Terminal.open({
      command: ["sh", "-c", '"$0" --version; "$0" --help; "$0" list; "$0" setup --dry-run; echo "all done"', i.gs],
      cwd: i.home,
      env: userEnv(i),
      keepOnExit: true,
    });
    await t.waitFor((s) => s.includes("all done"), "the excluded launches to finish");
    await t.close();
    expect(existsSync(join(i.prefix, "config", "companion.json"))).toBe(false);
    expect(existsSync(join(agent(i), "npm", "node_modules", "gentle-engram"))).toBe(false);

    const first = await interactive(i, { companion: true });
    expect(first).toContain("gentle-shell: installing the gentle-engram memory companion for Pi once (pi install npm:gentle-engram)...");
    expect(await packages(i)).toEqual(["npm:gentle-engram"]);
    expect(await installedVersion(i)).toBe("0.5.0");
    expect(await record(i)).toMatchObject({ schema: 1, status: "installed", version: "0.5.0" });
    const loaded = await readGentleEngramRecord(agent(i));
    expect(loaded?.version).toBe("0.5.0");
    expect(loaded?.env).toMatchObject({ ENGRAM_BIN: join(i.prefix, "bin", "engram-guard"), ENGRAM_STARTUP_POLICY: "disabled" });
    expect(loaded?.env).not.toHaveProperty("ENGRAM_URL");

    // An existing selection is not reinstalled; a companion the user removed is not put back.
    const before = (await fs.stat(join(agent(i), "npm", "node_modules", "gentle-engram", "package.json"))).mtimeMs;
    expect(await interactive(i, { companion: true })).not.toContain("gentle-engram");
    expect((await fs.stat(join(agent(i), "npm", "node_modules", "gentle-engram", "package.json"))).mtimeMs).toBe(before);
    const removed = await runCommand(i.gs, ["remove", "npm:gentle-engram"], { env: userEnv(i), cwd: i.home });
    expect(removed.code, removed.stdout + removed.stderr).toBe(0);
    expect(await interactive(i, { companion: false })).not.toContain("gentle-engram");
    expect(await packages(i)).toEqual([]);
  });

  it("reports a failed policy check in one line, and Pi still starts with the guard", async () => {
    const i = await home();
    // The user's npm installs the `nopolicy` tag: a gentle-engram without engram.startupPolicy.
    const stderr = await interactive(i, { companion: true, extra: { npm_config_tag: "nopolicy" } });
    const lines = stderr.split("\n").filter((l) => l.includes("gentle-engram"));
    expect(lines).toEqual([
      "gentle-shell: installing the gentle-engram memory companion for Pi once (pi install npm:gentle-engram)...",
      "gentle-shell: gentle-engram was installed, but gentle-engram 0.6.0-nopolicy.0 does not declare engram.startupPolicy: 1, so memory stays behind Gentle Shell's Engram guard; run gentle-shell update --extensions for a newer one.",
    ]);
    expect(await record(i)).toMatchObject({ status: "check-failed", reason: "gentle-engram 0.6.0-nopolicy.0 does not declare engram.startupPolicy: 1" });
    expect((await readGentleEngramRecord(agent(i)))?.env).toMatchObject({ ENGRAM_BIN: join(i.prefix, "bin", "engram-guard") });
  });

  it("reports a failed install in one line, starts Pi anyway, and does not try again on every launch", async () => {
    const i = await home();
    // The user's npm settings name a registry where nothing listens: npm fails, so does Pi's install.
    const stderr = await interactive(i, { companion: false, extra: { npm_config_registry: "http://127.0.0.1:9/", npm_config_fetch_retries: "0" } });
    const lines = stderr.split("\n").filter((l) => l.includes("gentle-engram"));
    expect(lines, stderr).toHaveLength(2);
    expect(lines[1]).toMatch(
      /^gentle-shell: gentle-engram was not installed \(pi install it exited with code 1: [^\n]+\), so Pi starts without it and memory stays behind Gentle Shell's Engram guard; run gentle-shell install npm:gentle-engram to try again\.$/,
    );
    expect(await record(i)).toMatchObject({ status: "failed" });
    expect(await packages(i)).toBeUndefined();
    // The next launch, whose npm would succeed, does not try again: the attempt is recorded.
    expect(await interactive(i, { companion: false })).not.toContain("gentle-engram");
    expect(existsSync(join(agent(i), "npm", "node_modules", "gentle-engram"))).toBe(false);
  });

  it("migrates the old npm:gentle-engram@0.4.2 registration without installing an update", async () => {
    const i = await home();
    // What an earlier Shell left: the pinned registration, 0.4.2 installed (a Pi subcommand: no companion work).
    const old = await runCommand(i.gs, ["install", "npm:gentle-engram@0.4.2"], { env: userEnv(i), cwd: i.home });
    expect(old.code, old.stdout + old.stderr).toBe(0);
    expect(existsSync(join(i.prefix, "config", "companion.json"))).toBe(false);
    const local = join(i.root, "local-ext");
    await fs.mkdir(local);
    await fs.writeFile(join(local, "index.js"), "export default function () {}\n");
    await setPackages(i, [{ source: "npm:gentle-engram@0.4.2", skills: [] }, local]);
    const npmFolder = join(agent(i), "npm", "node_modules", "gentle-engram");
    const files = await fs.readFile(join(npmFolder, "extensions", "record.js"), "utf8");

    const stderr = await interactive(i, { companion: true });
    expect(stderr).toContain(
      "gentle-shell: gentle-engram is now registered as npm:gentle-engram (it was npm:gentle-engram@0.4.2), so Pi offers its updates; run gentle-shell update --extensions to update it.",
    );
    expect(stderr).not.toContain("installing");
    expect(await packages(i)).toEqual([{ source: "npm:gentle-engram", skills: [] }, local]);
    // No update was installed: the 0.4.2 files stay, and Pi loaded 0.4.2.
    expect(await installedVersion(i)).toBe("0.4.2");
    expect(await fs.readFile(join(npmFolder, "extensions", "record.js"), "utf8")).toBe(files);
    expect((await readGentleEngramRecord(agent(i)))?.version).toBe("0.4.2");
    expect(existsSync(join(i.prefix, "config", "companion.json"))).toBe(false);
  });

  it("never rewrites another companion pin, a local companion or a linked home", async () => {
    const i = await home();
    const pinned = await runCommand(i.gs, ["install", "npm:gentle-engram@0.5.0"], { env: userEnv(i), cwd: i.home });
    expect(pinned.code, pinned.stdout + pinned.stderr).toBe(0);
    // Pi's own first interactive start records lastChangelogVersion; everything else stays as it was.
    const settings = async () => ({ ...JSON.parse(await fs.readFile(settingsFile(i), "utf8")), lastChangelogVersion: undefined });
    const unchanged = async (companion: boolean) => {
      const before = await settings();
      expect(await interactive(i, { companion })).not.toContain("gentle-engram");
      expect(await settings()).toEqual(before);
      expect(existsSync(join(i.prefix, "config", "companion.json"))).toBe(false);
    };
    await unchanged(true);
    expect(await packages(i)).toEqual(["npm:gentle-engram@0.5.0"]);

    // A local companion: a folder whose package.json names gentle-engram.
    const local = join(i.root, "my-engram");
    await fs.cp(join(agent(i), "npm", "node_modules", "gentle-engram"), local, { recursive: true });
    await setPackages(i, [local]);
    await unchanged(true);

    // A linked home (the agent folder is a link): its settings are the user's, even with no companion at all.
    await fs.rename(agent(i), join(i.root, "agent-elsewhere"));
    await fs.symlink(join(i.root, "agent-elsewhere"), agent(i));
    await setPackages(i, []);
    await unchanged(false);
  });
});
