/**
 * Setup after a new install, and on first use, with the fixture binary's
 * real install: the fixture gentle-ai records every run (argv, environment),
 * so these tests count the runs. A failing Gentle AI is the fixture's
 * GENTLE_AI_FIXTURE_EXIT. Interactive launches run in a real terminal (tmux,
 * keys with send-keys, the screen with capture-pane), with memory off by the
 * user's policy: setup publishes the verified Engram core, and Pi would
 * otherwise start the shared server on this machine's 127.0.0.1:7437.
 */
import { afterAll, describe, expect, it } from "vitest";
import { existsSync, promises as fs } from "node:fs";
import { join } from "pathe";
import { fixtures } from "../support/context";
import { homeEnv } from "../support/fixtures";
import { GENTLE_PI_MARKER, readGentleAiRuns } from "../support/gentle-pi";
import { runCommand } from "../support/proc";
import { OUTPUT_WAIT_MS } from "../support/limits";
import { installed, type Installed } from "../support/installed";
import { paneCommand } from "../support/tmux";

const f = fixtures();
const latest = f.releases[f.releases.length - 1]!;
const sockets: string[] = [];

afterAll(async () => {
  for (const s of sockets) await runCommand("tmux", ["-L", s, "kill-server"]).catch(() => undefined);
});

const runs = (h: Installed) => readGentleAiRuns(join(h.prefix, "gentle-ai"));
const marker = async (h: Installed) => JSON.parse(await fs.readFile(join(h.prefix, "config", "setup.json"), "utf8"));
/** The environment of a launch: the user's, with memory off by policy (see above). */
const userEnv = (h: Installed, extra: NodeJS.ProcessEnv = {}) =>
  homeEnv(h.home, { TERM: "xterm-256color", PATH: "/usr/bin:/bin", ENGRAM_STARTUP_POLICY: "disabled", PI_TELEMETRY: "0", ...extra });

class Terminal {
  constructor(readonly socket: string) {}
  static async open(h: Installed, command: string[], extra: NodeJS.ProcessEnv = {}): Promise<Terminal> {
    const socket = `gss-fu-${process.pid}-${Math.random().toString(16).slice(2)}`;
    sockets.push(socket);
    const conf = join(h.home, "tmux.conf");
    await fs.writeFile(conf, "set -g remain-on-exit on\n");
    const r = await runCommand("tmux", ["-L", socket, "-f", conf, "new-session", "-d", "-x", "120", "-y", "40", "--", ...paneCommand(command)], {
      env: userEnv(h, extra),
      cwd: h.home,
    });
    expect(r.code, r.stderr).toBe(0);
    return new Terminal(socket);
  }
  async screen(): Promise<string> {
    return (await runCommand("tmux", ["-L", this.socket, "capture-pane", "-p", "-J"])).stdout;
  }
  async waitFor(test: (screen: string) => boolean | Promise<boolean>, what: string, ms = OUTPUT_WAIT_MS): Promise<string> {
    const end = Date.now() + ms;
    let last = "";
    while (Date.now() < end) {
      last = await this.screen();
      if (await test(last)) return last;
      await new Promise((r) => setTimeout(r, 150));
    }
    throw new Error(`waited for ${what}; the screen shows:\n${last}`);
  }
  async close() {
    await runCommand("tmux", ["-L", this.socket, "kill-server"]);
  }
}

/** Pi's idle editor: a plain upper border of 20 or more ─. */
const piOpen = (s: string) => /─{20,}/.test(s);

/** Open `gentle-shell <args>` in a terminal, wait until Pi loaded gentle-pi and shows its editor, then close it. */
async function interactive(h: Installed, args: string[] = [], extra: NodeJS.ProcessEnv = {}, stderrFile?: string): Promise<string> {
  const loaded = join(h.prefix, "agent", GENTLE_PI_MARKER);
  await fs.rm(loaded, { force: true });
  const command = stderrFile ? ["sh", "-c", 'exec "$0" "$@" 2>"$GSS_STDERR"', h.gs, ...args] : [h.gs, ...args];
  const t = await Terminal.open(h, command, stderrFile ? { ...extra, GSS_STDERR: stderrFile } : extra);
  const screen = await t.waitFor(async (s) => piOpen(s) && existsSync(loaded), "Pi's editor with gentle-pi loaded");
  await t.close();
  return screen;
}

describe.concurrent("setup on first use", () => {
  it("after --no-setup: never for --version, help, subcommands, print or rpc mode, no terminal or a subagent; then once, in the setup environment", async () => {
    // A copy of the run's shared install with these arguments (it exited 0).
    const h = await installed(f, { extra: ["--no-setup"], stubModel: true });
    expect(h.output).toContain("- setup: skipped (--no-setup; the first interactive gentle-shell runs gentle-shell setup once)");
    expect(await runs(h)).toEqual([]);
    expect(existsSync(join(h.prefix, "config", "setup.json"))).toBe(false);

    // No terminal: a plain start, --version, help, a Pi subcommand and print mode.
    for (const args of [[], ["--version"], ["--help"], ["list"], ["-p", "say hi"]]) {
      const r = await runCommand(h.gs, args, { env: userEnv(h), cwd: h.home });
      expect(r.stderr, JSON.stringify(args)).not.toContain("setting up Gentle AI");
    }
    // A terminal: the same, Shell's own subcommands, and RPC mode (Pi then waits for commands on its input).
    const t = await Terminal.open(h, [
      "sh",
      "-c",
      '"$0" --version; "$0" --help; "$0" list; "$0" -p "say hi"; "$0" setup --dry-run; "$0" status; "$0" upgrade --bogus; "$0" self-uninstall --dry-run; echo "all done"',
      h.gs,
    ]);
    await t.waitFor((s) => s.includes("all done"), "the excluded launches to finish");
    await t.close();
    const loaded = join(h.prefix, "agent", GENTLE_PI_MARKER);
    await fs.rm(loaded, { force: true });
    const rpc = await Terminal.open(h, [h.gs, "--mode", "rpc"]);
    await rpc.waitFor(() => existsSync(loaded), "Pi in RPC mode to load gentle-pi");
    await rpc.close();
    // A launch inside a Gentle Shell session (a subagent, the agent's shell) is interactive, but never sets up.
    await interactive(h, [], { GENTLE_SHELL_PREFIX: h.prefix });
    // Only `setup --dry-run` ran Gentle AI, and it records nothing.
    expect((await runs(h)).map((r) => r.argv)).toEqual([["install", "--agent", "pi", "--dry-run"]]);
    expect(existsSync(join(h.prefix, "config", "setup.json"))).toBe(false);

    // The first interactive start, with a NODE_OPTIONS of the user's, which Pi keeps and setup does not get.
    await interactive(h, [], { NODE_OPTIONS: "--max-old-space-size=3000" });
    const all = await runs(h);
    expect(all).toHaveLength(2);
    const run = all[1]!;
    expect(run.argv).toEqual(["install", "--agent", "pi"]);
    expect(run.version).toBe(latest.shell);
    expect(run.env).toMatchObject({
      npm_config_userconfig: join(h.prefix, "pnpm", "config", "npmrc"),
      npm_config_prefix: join(h.prefix, "npm", "prefix"),
      npm_config_update_notifier: "false",
      GENTLE_AI_HOME: join(h.prefix, "gentle-ai"),
      GENTLE_AI_ENGRAM_BIN: join(h.prefix, "runtime", "engram-3.5.2", "engram"),
    });
    expect(run.env).not.toHaveProperty("NODE_OPTIONS");
    expect(run.env).not.toHaveProperty("GENTLE_SHELL_USER_NODE_OPTIONS");
    const front = [join(h.prefix, "runtime", "node-24.21.0", "bin"), join(h.prefix, "versions", latest.id, "node_modules", ".bin")].join(":");
    expect(run.env.PATH).toBe(`${front}:/usr/bin:/bin`);
    // The Engram core came from where the install did (its remembered mirror).
    expect(existsSync(join(h.prefix, "runtime", "engram-3.5.2", "engram"))).toBe(true);
    // Pi got the user's environment: their NODE_OPTIONS, none of Gentle AI's variables.
    const pi = JSON.parse(await fs.readFile(join(h.prefix, "agent", GENTLE_PI_MARKER), "utf8"));
    expect(pi.env.NODE_OPTIONS).toBe("--max-old-space-size=3000");
    expect(Object.keys(pi.env).filter((k) => k.startsWith("GENTLE_AI_"))).toEqual([]);
    expect(await marker(h)).toMatchObject({ schema: 1, status: "done", by: "first-use", version: latest.id });
    expect((await fs.stat(join(h.prefix, "config", "setup.json"))).mode & 0o777).toBe(0o600);

    // Once: the next interactive start goes straight to Pi.
    await interactive(h);
    expect(await runs(h)).toHaveLength(2);
    // self-uninstall removes the marker, also when it keeps the shared config.json beside it,
    // so an install made later sets up again.
    await fs.writeFile(join(h.prefix, "config", "config.json"), "{}\n");
    const gone = await runCommand(h.gs, ["self-uninstall", "--yes"], { env: userEnv(h), cwd: h.home });
    expect(gone.code, gone.stdout + gone.stderr).toBe(0);
    expect(await fs.readdir(join(h.prefix, "config"))).toEqual(["config.json"]);
  });

  it("a failed setup step leaves a working install that says how to rerun it, and the first interactive start runs setup once more", async () => {
    // An install of its own: its setup step fails (exit 5 from the fixture gentle-ai), so the install exits 3.
    const h = await installed(f, { env: { GENTLE_AI_FIXTURE_EXIT: "5" }, exitCode: 3, stubModel: true });
    const out = h.output;
    expect(out).toMatch(/^✔ path: /m);
    expect(out).toContain("✖ setup failed: gentle-shell setup exited with code 5");
    expect(out).toContain("Gentle Shell is installed: ~/.gentle-shell/bin/gentle-shell");
    expect(out).toContain(
      "Gentle AI is not set up yet, because the setup step failed; Gentle Shell works without it, and you can run gentle-shell setup to try again (the first interactive gentle-shell also tries it once).",
    );
    expect(out).not.toContain("Gentle Shell was not installed");
    expect(await runs(h)).toHaveLength(1);
    expect(existsSync(join(h.prefix, "config", "setup.json"))).toBe(false);
    // The launcher works, and PATH finds it.
    const v = await runCommand("bash", ["-i", "-c", "gentle-shell --version"], { env: homeEnv(h.home, { PATH: "/usr/bin:/bin", TERM: "dumb" }), cwd: h.home });
    expect(v.stdout.split("\n").slice(0, 2)).toEqual([`gentle-shell ${latest.shell}`, `pi ${latest.pi}`]);

    await interactive(h);
    const all = await runs(h);
    expect(all).toHaveLength(2);
    expect(all[1]!.argv).toEqual(["install", "--agent", "pi"]);
    expect(await marker(h)).toMatchObject({ status: "done", by: "first-use" });
  });

  it("a failing first-use setup is reported in one line, Pi still starts behind the guard, and it is not retried", async () => {
    // A copy of the run's shared install with these arguments (it exited 0).
    const h = await installed(f, { extra: ["--no-setup"], stubModel: true });
    const stderr = join(h.home, "launch.err");
    await interactive(h, [], { GENTLE_AI_FIXTURE_EXIT: "9" }, stderr);
    expect(await runs(h)).toHaveLength(1);
    // Gentle Shell's own lines (Pi may add warnings of its own).
    const lines = (await fs.readFile(stderr, "utf8")).split("\n").filter((l) => l.startsWith("gentle-shell:"));
    expect(lines).toEqual([
      "gentle-shell: setting up Gentle AI for Pi once, before Pi starts (gentle-shell setup)...",
      "gentle-shell: first-use setup did not finish (Gentle AI exited with code 9), so Pi starts without Gentle AI's setup; run gentle-shell setup to try again.",
      // The memory companion is Pi's package, installed in the same launch (e2e/companion.test.ts).
      "gentle-shell: installing the gentle-engram memory companion for Pi once (pi install npm:gentle-engram)...",
    ]);
    const pi = JSON.parse(await fs.readFile(join(h.prefix, "agent", GENTLE_PI_MARKER), "utf8"));
    expect(pi.env.ENGRAM_BIN).toBe(join(h.prefix, "bin", "engram-guard"));
    expect(pi.env).not.toHaveProperty("ENGRAM_URL");
    expect(await marker(h)).toMatchObject({ status: "failed", by: "first-use", reason: "Gentle AI exited with code 9" });

    // Not retried: the next interactive start (Gentle AI would succeed now) goes straight to Pi.
    await interactive(h);
    expect(await runs(h)).toHaveLength(1);
  });
});
