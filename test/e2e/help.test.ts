/**
 * `gentle-shell --help` through the installed launcher (issue 11, Help):
 * Gentle Shell's own commands come first, then Pi's own help byte for byte
 * as the pinned Pi prints it. The launch neither probes Engram nor starts a
 * server nor prints a memory notice, although setup published the core (so
 * a plain launch would start one): each launch runs in a network namespace
 * of its own (unshare -n) where a listener on Engram's 127.0.0.1:7437 logs
 * every request it gets.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { promises as fs } from "node:fs";
import { join } from "pathe";
import { shellHelpLines } from "../../src/engine/help";
import { fixtures } from "../support/context";
import { homeEnv } from "../support/fixtures";
import { installed, type Installed } from "../support/installed";
import { runCommand } from "../support/proc";

const f = fixtures();
const latest = f.releases[f.releases.length - 1]!;
const BLOCK = `${shellHelpLines().join("\n")}\n`;

let i: Installed;
beforeAll(async () => {
  i = await installed(f);
  const s = await runCommand(i.gs, ["setup"], { env: i.env, cwd: i.home });
  expect(s.code, s.stdout + s.stderr).toBe(0);
  expect(await fs.stat(join(i.prefix, "runtime", "engram-3.5.2", "engram"))).toBeTruthy();
});

/** Run the launcher with `args` in a fresh network namespace whose 127.0.0.1:7437 logs each request. */
async function launchWatched(args: string[]) {
  const log = join(i.home, `engram-requests-${Math.random().toString(16).slice(2)}.log`);
  const listener = `require("node:http").createServer((q, s) => { if (q.url !== "/__ready") require("node:fs").appendFileSync(process.env.LOG, q.method + " " + q.url + "\\n"); s.writeHead(404).end(); }).listen(7437, "127.0.0.1")`;
  const script = `
set -u
ip link set lo up
: >"$LOG"
node -e '${listener}' &
listener=$!
for _ in $(seq 50); do curl -fs -o /dev/null http://127.0.0.1:7437/__ready; [ $? -eq 22 ] && break; sleep 0.1; done
"$GS" "$@" >"$LOG.out" 2>"$LOG.err"
echo "code=$?"
kill "$listener"
`;
  const r = await runCommand("unshare", ["-n", "bash", "-c", script, "bash", ...args], {
    env: homeEnv(i.home, { GS: i.gs, LOG: log, PATH: process.env.PATH, PI_OFFLINE: "1" }),
    cwd: i.home,
  });
  expect(r.code, r.stdout + r.stderr).toBe(0);
  return {
    code: Number(/code=(\d+)/.exec(r.stdout)?.[1]),
    stdout: await fs.readFile(`${log}.out`, "utf8"),
    stderr: await fs.readFile(`${log}.err`, "utf8"),
    requests: (await fs.readFile(log, "utf8")).split("\n").filter(Boolean),
  };
}

/** Pi's help as the pinned Pi prints it, run directly with the version's gentle-pi (whose flags it lists). */
async function piOwnHelp(): Promise<string> {
  const version = join(i.prefix, "versions", latest.id);
  const piRoot = join(version, "node_modules", "@earendil-works", "pi-coding-agent");
  const bin = JSON.parse(await fs.readFile(join(piRoot, "package.json"), "utf8")).bin;
  const cli = join(piRoot, typeof bin === "string" ? bin : bin.pi);
  const node = join(i.prefix, "runtime", "node-24.21.0", "bin", "node");
  const r = await runCommand(node, [cli, "--extension", join(version, "node_modules", "gentle-pi"), "--help"], {
    env: homeEnv(i.home, { PI_CODING_AGENT_DIR: join(i.prefix, "agent"), PI_OFFLINE: "1" }),
    cwd: i.home,
  });
  expect(r.code, r.stderr).toBe(0);
  return r.stdout;
}

describe("gentle-shell --help", () => {
  it("prints Gentle Shell's commands first, then Pi's own help unchanged", async () => {
    const r = await launchWatched(["--help"]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout.startsWith(BLOCK), r.stdout.slice(0, 600)).toBe(true);
    for (const command of ["setup", "upgrade", "upgrade --rollback", "update", "self-uninstall"]) {
      expect(r.stdout.slice(0, BLOCK.length)).toMatch(new RegExp(`^  gentle-shell ${command} {2,}\\S`, "m"));
    }
    const pi = await piOwnHelp();
    expect(pi).toContain("Usage:");
    expect(r.stdout.slice(BLOCK.length)).toBe(pi);
  });

  it("never probes Engram, starts a server or prints a memory notice, for --help and for -h after an option", async () => {
    for (const args of [["--help"], ["--continue", "-h"]]) {
      const r = await launchWatched(args);
      expect(r.code, r.stderr).toBe(0);
      expect(r.stdout.startsWith(BLOCK)).toBe(true);
      expect(r.requests, JSON.stringify(args)).toEqual([]);
      expect(r.stderr).not.toMatch(/Engram|memory/i);
    }
    // The watch is real: a plain launch of the same install asks that listener at once.
    const plain = await launchWatched(["-p", "hi"]);
    expect(plain.requests).toContain("GET /compatibility");
    expect(plain.stdout.startsWith(BLOCK)).toBe(false);
  });

  it("adds nothing to a Pi subcommand's own help or to a help flag Pi does not read", async () => {
    const sub = await launchWatched(["install", "--help"]);
    expect(sub.code, sub.stderr).toBe(0);
    expect(sub.stdout).not.toContain("Gentle Shell commands:");
    expect(sub.stdout).toMatch(/install/);
    const version = await launchWatched(["--help", "--version"]);
    expect(version.stdout.trim()).toBe(latest.pi);
  });
});
