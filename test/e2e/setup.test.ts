/**
 * gentle-shell setup through the installed launcher: the verified Engram
 * first, then the version's pinned Gentle AI with pi on PATH and Gentle AI's
 * isolation variables; what it rewrites of the user's files is restored.
 */
import { describe, expect, it } from "vitest";
import { existsSync, promises as fs } from "node:fs";
import { join } from "pathe";
import { fixtures } from "../support/context";
import { homeEnv } from "../support/fixtures";
import { mirrorClient } from "../support/mirror";
import { readGentleAiRuns } from "../support/gentle-pi";
import { runCommand } from "../support/proc";
import { installed } from "../support/installed";
import { scratchDir } from "../support/scratch";

const f = fixtures();
const latest = f.releases[f.releases.length - 1]!;

/** Every install here skips its setup step (--no-setup), so each test runs `gentle-shell setup` itself. */
const NO_SETUP = ["--no-setup"];

describe.concurrent("gentle-shell setup", () => {
  it("publishes the verified Engram, then runs the pinned Gentle AI isolated in the prefix", async () => {
    const { home } = await installed(f, { extra: NO_SETUP });
    const prefix = join(home, ".gentle-shell");
    const r = await runCommand(join(prefix, "bin", "gentle-shell"), ["setup"], {
      env: homeEnv(home, { PATH: "/usr/bin:/bin", GENTLE_PI_CONFIG_HOME: "/users/own/config" }),
      cwd: home,
    });
    expect(r.code, r.stdout + r.stderr).toBe(0);
    expect(await fs.readFile(join(prefix, "runtime", "engram-3.5.2", ".gentle-shell-runtime"), "utf8")).toBeTruthy();
    const runs = await readGentleAiRuns(join(prefix, "gentle-ai"));
    expect(runs).toHaveLength(1);
    const run = runs[0]!;
    expect(run.argv).toEqual(["install", "--agent", "pi"]);
    expect(run.version).toBe(latest.shell);
    expect(run.env).toMatchObject({
      GENTLE_AI_HOME: join(prefix, "gentle-ai"),
      GENTLE_AI_PI_CONFIG_DIR: join(prefix, "config", "gentle-ai"),
      GENTLE_AI_ENGRAM_BIN: join(prefix, "runtime", "engram-3.5.2", "engram"),
      GENTLE_AI_NO_SELF_UPDATE: "1",
      GENTLE_PI_CONFIG_HOME: join(prefix, "config"),
      GENTLE_SHELL_PREFIX: prefix,
      PI_CODING_AGENT_DIR: join(prefix, "agent"),
    });
    // Our node first, then the version's .bin (which holds pi), then the user's PATH.
    expect(run.env.PATH).toBe(
      [join(prefix, "runtime", "node-24.21.0", "bin"), join(prefix, "versions", latest.id, "node_modules", ".bin"), "/usr/bin", "/bin"].join(":"),
    );
    expect(existsSync(join(prefix, "versions", latest.id, "node_modules", ".bin", "pi"))).toBe(true);
    // It records that setup ran, so the first interactive gentle-shell does not run it again.
    expect(JSON.parse(await fs.readFile(join(prefix, "config", "setup.json"), "utf8"))).toMatchObject({ status: "done", by: "setup", version: latest.id });
    // A dry run does not count.
    await fs.rm(join(prefix, "config", "setup.json"));
    const dry = await runCommand(join(prefix, "bin", "gentle-shell"), ["setup", "--dry-run"], { env: homeEnv(home), cwd: home });
    expect(dry.code, dry.stdout + dry.stderr).toBe(0);
    expect(existsSync(join(prefix, "config", "setup.json"))).toBe(false);
  });

  it("--help and --dry-run only look: no Engram is published or downloaded, no folder is made, setup is not recorded", async () => {
    const { home } = await installed(f, { extra: NO_SETUP });
    const prefix = join(home, ".gentle-shell");
    const record = join(scratchDir("gss-setup-look-"), "record");
    for (const [i, args] of [
      ["setup", "--help"],
      ["setup", "--dry-run"],
      ["setup", "-h"],
    ].entries()) {
      const r = await runCommand(join(prefix, "bin", "gentle-shell"), args, {
        env: homeEnv(home, { GENTLE_AI_FIXTURE_RECORD: `${record}-${i}` }),
        cwd: home,
      });
      expect(r.code, r.stdout + r.stderr).toBe(0);
      // Gentle AI itself answered (its help, its dry run)...
      expect((await fs.readFile(`${record}-${i}`, "utf8")).split("\0")).toContain(args[1]);
    }
    // ...and nothing was installed for it.
    expect(existsSync(join(prefix, "runtime", "engram-3.5.2"))).toBe(false);
    expect(existsSync(join(prefix, "gentle-ai"))).toBe(false);
    expect(existsSync(join(prefix, "config", "gentle-ai"))).toBe(false);
    expect(existsSync(join(prefix, "config", "setup.json"))).toBe(false);
  });

  it("restores the persona files Gentle AI rewrites, and removes one it created", async () => {
    const { home } = await installed(f, { extra: NO_SETUP });
    const prefix = join(home, ".gentle-shell");
    await fs.mkdir(join(home, ".pi", "gentle-ai"), { recursive: true });
    await fs.writeFile(join(home, ".pi", "gentle-ai", "persona.json"), '{"mine":true}\n');
    const r = await runCommand(join(prefix, "bin", "gentle-shell"), ["setup"], {
      env: homeEnv(home, { GENTLE_AI_FIXTURE_PERSONA: '{"rewritten":true}' }),
      cwd: home,
    });
    expect(r.code, r.stdout + r.stderr).toBe(0);
    expect(await fs.readFile(join(home, ".pi", "gentle-ai", "persona.json"), "utf8")).toBe('{"mine":true}\n');
    expect(existsSync(join(prefix, "config", "gentle-ai", "persona.json"))).toBe(false);
    expect(r.stderr).toContain("restored ~/.pi/gentle-ai/persona.json, which Gentle AI changed");
  });

  it("stops before Gentle AI when the Engram core cannot be verified", async () => {
    const scope = await mirrorClient(f.mirrorUrl).scope();
    const { home } = await installed(f, { extra: NO_SETUP, source: scope.url });
    await scope.setFault(f.pins.engram.archives["linux-x64"]!.path, { kind: "flip" });
    const prefix = join(home, ".gentle-shell");
    const r = await runCommand(join(prefix, "bin", "gentle-shell"), ["setup"], { env: homeEnv(home), cwd: home });
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/setup stopped: the bundled Engram could not be published \(.*does not match its pinned sha256/);
    expect(await readGentleAiRuns(join(prefix, "gentle-ai"))).toEqual([]);
    expect(existsSync(join(prefix, "runtime", "engram-3.5.2"))).toBe(false);
    expect(existsSync(join(prefix, "config", "setup.json"))).toBe(false);
  });
});
