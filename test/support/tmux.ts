/**
 * A real terminal for TUI tests: a tmux server of its own (one socket per
 * terminal), keys typed with send-keys, the screen read with capture-pane,
 * and Pi's state read from it with the screen classifier (./screen.ts).
 *
 *   const t = await Terminal.open({ command: [gs], cwd, env, columns: 80 });
 *   await t.waitForPi("idle");
 *   await t.type("/gss-select");
 *
 * Every server a test file started is killed when the file ends.
 */
import { readdirSync, readFileSync } from "node:fs";
import { afterAll, expect } from "vitest";
import { OUTPUT_WAIT_MS } from "./limits";
import { classifyPiScreen, type PiScreenState } from "./screen";
import { runCommand } from "./proc";

const servers: string[] = [];

afterAll(async () => {
  for (const socket of servers.splice(0)) await runCommand("tmux", ["-L", socket, "kill-server"]).catch(() => undefined);
});

export interface TerminalOptions {
  command: string[];
  cwd: string;
  env: NodeJS.ProcessEnv;
  columns?: number;
  rows?: number;
  /** Keep the screen after the program exits (tmux's remain-on-exit), to read its last lines. */
  keepOnExit?: boolean;
}

/**
 * The argv for tmux's new-session: tmux runs a command of one word through `$SHELL -c`, where a path with a space
 * (a TMPDIR or home that holds one) splits, and execs two or more words itself. A lone program is handed to sh as
 * "$0" and exec'd, so it runs whatever its path holds and is still the pane's own process.
 */
export function paneCommand(command: readonly string[]): string[] {
  return command.length === 1 ? ["/bin/sh", "-c", 'exec "$0"', command[0]!] : [...command];
}

export class Terminal {
  private constructor(
    readonly socket: string,
    readonly columns: number,
    readonly rows: number,
  ) {}

  static async open(options: TerminalOptions): Promise<Terminal> {
    const columns = options.columns ?? 100;
    const rows = options.rows ?? 30;
    const socket = `gss-${process.pid}-${Math.random().toString(16).slice(2)}`;
    servers.push(socket);
    // No tmux.conf but extended keys on (set before the program starts), as Pi asks of tmux users.
    const r = await runCommand(
      "tmux",
      [
        ...["-L", socket, "-f", "/dev/null", "start-server", ";", "set-option", "-g", "extended-keys", "on", ";"],
        ...(options.keepOnExit ? ["set-option", "-g", "remain-on-exit", "on", ";"] : []),
        ...["new-session", "-d", "-x", String(columns), "-y", String(rows), "--", ...paneCommand(options.command)],
      ],
      { env: { TERM: "xterm-256color", ...options.env }, cwd: options.cwd },
    );
    expect(r.code, r.stderr).toBe(0);
    return new Terminal(socket, columns, rows);
  }

  /** The visible screen, as capture-pane prints it (wrapped lines joined). */
  async screen(): Promise<string> {
    return (await runCommand("tmux", ["-L", this.socket, "capture-pane", "-p", "-J"])).stdout;
  }

  async keys(...keys: string[]): Promise<void> {
    await runCommand("tmux", ["-L", this.socket, "send-keys", ...keys]);
  }

  /** Type `text` literally, then Enter a moment later (Pi treats a fast Enter after text as part of a paste). */
  async type(text: string): Promise<void> {
    await runCommand("tmux", ["-L", this.socket, "send-keys", "-l", text]);
    await new Promise((r) => setTimeout(r, 300));
    await this.keys("Enter");
  }

  async waitFor(test: (screen: string) => boolean, what: string, ms = OUTPUT_WAIT_MS): Promise<string> {
    const end = Date.now() + ms;
    let last = "";
    while (Date.now() < end) {
      last = await this.screen();
      if (test(last)) return last;
      await new Promise((r) => setTimeout(r, 150));
    }
    throw new Error(`waited for ${what}; the screen shows:\n${last}`);
  }

  /** Pi's state by the detection rules (null: none of them matches). */
  async piState(): Promise<PiScreenState | null> {
    return classifyPiScreen(await this.screen(), this.columns);
  }

  /** Wait until the screen classifies as `state`; returns that screen. */
  waitForPi(state: PiScreenState, ms = OUTPUT_WAIT_MS): Promise<string> {
    return this.waitFor((s) => classifyPiScreen(s, this.columns) === state, `Pi ${state}`, ms);
  }

  /**
   * With keepOnExit: wait until the program has exited (tmux's pane_dead, not
   * its "Pane is dead" line, which tmux does not always draw); its last
   * screen, and its exit status when tmux collected it (null otherwise).
   */
  async waitForExit(ms = OUTPUT_WAIT_MS): Promise<{ status: number | null; screen: string }> {
    const end = Date.now() + ms;
    while (Date.now() < end) {
      const r = await runCommand("tmux", ["-L", this.socket, "list-panes", "-F", "#{pane_dead} #{pane_dead_status}"]);
      const [dead, status] = r.stdout.trim().split(" ");
      if (dead === "1") return { status: status ? Number(status) : null, screen: await this.screen() };
      await new Promise((resolve) => setTimeout(resolve, 150));
    }
    throw new Error(`waited for the program to exit; the screen shows:\n${await this.screen()}`);
  }

  /**
   * Kill the terminal and wait until every process that ran in it has ended:
   * tmux's SIGHUP reaches the program at once, but the launcher and Pi take a
   * moment to exit, and a test that moves their files meanwhile races them.
   */
  async close(): Promise<void> {
    const panes = await runCommand("tmux", ["-L", this.socket, "list-panes", "-F", "#{pane_pid}"]);
    const tree = sessionTree(
      panes.stdout
        .split("\n")
        .map(Number)
        .filter((pid) => pid > 0),
    );
    await runCommand("tmux", ["-L", this.socket, "kill-server"]);
    const end = Date.now() + OUTPUT_WAIT_MS;
    while (tree.some(alive)) {
      if (Date.now() > end) throw new Error(`the processes ${tree.filter(alive).join(", ")} outlived their closed terminal`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }
}

/** What /proc/<pid>/stat says of a process: the fields after its command, which is in parentheses and may hold spaces. */
interface ProcStat {
  state: string;
  ppid: number;
  session: number;
}

/** null once the process has ended. */
function procStat(pid: number): ProcStat | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    const [state, ppid, , session] = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return { state: state!, ppid: Number(ppid), session: Number(session) };
  } catch {
    return null;
  }
}

/**
 * `roots` and every process below them that is in the first root's session, from one
 * reading of /proc: a child the product detaches on purpose (setsid) may outlive the pane.
 */
function sessionTree(roots: number[]): number[] {
  const stats = new Map<number, ProcStat>();
  for (const name of readdirSync("/proc")) {
    const stat = /^\d+$/.test(name) ? procStat(Number(name)) : null;
    if (stat) stats.set(Number(name), stat);
  }
  const children = new Map<number, number[]>();
  for (const [pid, stat] of stats) children.set(stat.ppid, [...(children.get(stat.ppid) ?? []), pid]);
  const all: number[] = [];
  const next = [...roots];
  for (let pid = next.pop(); pid !== undefined; pid = next.pop()) {
    all.push(pid);
    next.push(...(children.get(pid) ?? []));
  }
  const session = roots[0] === undefined ? undefined : stats.get(roots[0])?.session;
  return session === undefined ? all : all.filter((pid) => stats.get(pid)?.session === session);
}

/** Whether `pid` still runs (a zombie has ended: only its parent's wait is left). */
function alive(pid: number): boolean {
  const stat = procStat(pid);
  return stat !== null && stat.state !== "Z";
}
