/**
 * A real terminal for the launcher: tmux on its own socket runs a command,
 * keys are typed with send-keys and the screen read with capture-pane. Every
 * server a file opened is killed when that file ends.
 *
 *   const t = await Terminal.open(home, [launcher]);
 *   await t.waitFor((s) => s.includes("…"), "the offer");
 *   await t.keys("Enter");
 */
import { promises as fs } from "node:fs";
import { join } from "pathe";
import { afterAll, expect } from "vitest";
import { homeEnv } from "./fixtures";
import { runCommand } from "./proc";

const sockets: string[] = [];

// Registered while the importing test file is collected, so it runs when that file is done.
afterAll(async () => {
  for (const s of sockets.splice(0)) await runCommand("tmux", ["-L", s, "kill-server"]).catch(() => undefined);
});

export class Terminal {
  constructor(readonly socket: string) {}

  /** `command` in a 120x40 terminal, with `home` as HOME and memory off (see below). */
  static async open(home: string, command: string[], extraEnv: NodeJS.ProcessEnv = {}): Promise<Terminal> {
    const socket = `gss-${process.pid}-${Math.random().toString(16).slice(2)}`;
    sockets.push(socket);
    const conf = join(home, "tmux.conf");
    await fs.writeFile(conf, "set -g extended-keys on\nset -g remain-on-exit on\n");
    // Memory off by the user's policy: a launched Pi must never start the shared Engram server on this
    // machine's default endpoint (127.0.0.1:7437).
    const env = homeEnv(home, { TERM: "xterm-256color", PATH: "/usr/bin:/bin", ENGRAM_STARTUP_POLICY: "disabled", ...extraEnv });
    const r = await runCommand("tmux", ["-L", socket, "-f", conf, "new-session", "-d", "-x", "120", "-y", "40", "--", ...command], { env, cwd: home });
    expect(r.code, r.stderr).toBe(0);
    return new Terminal(socket);
  }

  async screen(): Promise<string> {
    return (await runCommand("tmux", ["-L", this.socket, "capture-pane", "-p", "-J"])).stdout;
  }

  async keys(...keys: string[]): Promise<void> {
    await runCommand("tmux", ["-L", this.socket, "send-keys", ...keys]);
  }

  async waitFor(test: (screen: string) => boolean, what: string, ms = 60_000): Promise<string> {
    const end = Date.now() + ms;
    let last = "";
    while (Date.now() < end) {
      last = await this.screen();
      if (test(last)) return last;
      await new Promise((r) => setTimeout(r, 150));
    }
    throw new Error(`waited for ${what}; the screen shows:\n${last}`);
  }

  async close(): Promise<void> {
    await runCommand("tmux", ["-L", this.socket, "kill-server"]);
  }
}
