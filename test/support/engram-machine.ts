/**
 * The machines of the Engram launch tests (integration/engram-*.test.ts):
 * `machine()` is a HOME with a bundled install's layout whose core is the
 * fixture `engram`, wrapped so that its `serve` listens on a free port (never
 * 7437); `serve()` starts an in-process server of one decision-table row;
 * `fixtureReport()` asks the fixture server Shell started about itself.
 * Importing this registers the file's hooks (as ./scratch.ts does): the
 * fixture `engram` is written before the tests, and after each test the
 * servers are stopped and the processes started are killed.
 */
import { afterEach, beforeAll } from "vitest";
import { promises as fs } from "node:fs";
import { join } from "pathe";
import { prefixLayout, type Layout } from "../../src/core/layout";
import { productionPins } from "../../src/pins/production";
import { RUNTIME_MARKER } from "../../src/install/runtime/recipe";
import { loopbackGet, type Endpoint } from "../../src/installed/engram/probe";
import { engramProgramIn, startEngramServer, type EngramServer, type EngramVariant } from "./engram";
import { homeEnv } from "./fixtures";
import { freePort } from "./proc";
import { scratchDir } from "./scratch";

/** This file's scratch folder: the machines' homes and anything else a test writes. */
export const work = scratchDir("gss-engram-");
let fixtureEngramPath: string;
let olderEngramPath: string;

/** Servers and processes the importing test file started, stopped after each test. */
const servers: EngramServer[] = [];
const pids = new Set<number>();
/** Each machine's log of the pids its wrapped core ran as (exec keeps the pid). */
const pidLogs: string[] = [];

beforeAll(async () => {
  fixtureEngramPath = await engramProgramIn(join(work, "fixture-engram"));
  olderEngramPath = await engramProgramIn(join(work, "fixture-engram-without-migrate-copy"), { migrateCopy: false });
});
afterEach(async () => {
  for (const s of servers.splice(0)) await s.stop();
  for (const file of pidLogs.splice(0)) {
    for (const line of (await fs.readFile(file, "utf8").catch(() => "")).split("\n")) if (line) pids.add(Number(line));
  }
  for (const pid of pids) {
    try {
      process.kill(pid, "SIGKILL");
    } catch {
      // already gone
    }
  }
  pids.clear();
});

/** The fixture `engram` program the machines' cores wrap. */
export function fixtureEngram(): string {
  return fixtureEngramPath;
}

export interface Machine {
  home: string;
  layout: Layout;
  endpoint: Endpoint;
  env: Record<string, string | undefined>;
  /** Lines the wrapped core wrote each time it was run. */
  starts(): Promise<string[]>;
}

/**
 * A HOME with a bundled install's layout; `core` publishes the wrapped fixture core,
 * `migrateCopy: false` the fixture variant whose help does not advertise migrate-copy.
 */
export async function machine(options: { core?: "verified" | "no-marker" | "missing" | "fails"; port?: number; migrateCopy?: boolean } = {}): Promise<Machine> {
  const home = await fs.mkdtemp(join(work, "home-"));
  const layout = prefixLayout({ home, platform: "linux", pins: productionPins });
  const port = options.port ?? (await freePort());
  const log = join(home, "core-starts.log");
  const pidLog = join(home, "core-pids.log");
  pidLogs.push(pidLog);
  const core = options.core ?? "verified";
  if (core !== "missing") {
    await fs.mkdir(layout.engramDir, { recursive: true });
    if (core !== "no-marker") await fs.writeFile(join(layout.engramDir, RUNTIME_MARKER), "engram 3.5.2 sha256 fixture\n");
    const body =
      core === "fails"
        ? `echo "$* cwd=$PWD" >> '${log}'\nexit 1\n`
        : `echo "$$" >> '${pidLog}'\necho "$* cwd=$PWD" >> '${log}'\nENGRAM_PORT=${port} exec '${options.migrateCopy === false ? olderEngramPath : fixtureEngramPath}' "$@"\n`;
    await fs.writeFile(layout.engram, `#!/bin/sh\n${body}`, { mode: 0o755 });
  }
  return {
    home,
    layout,
    endpoint: { host: "127.0.0.1", port },
    env: homeEnv(home),
    starts: async () => ((await fs.readFile(log, "utf8").catch(() => "")) || "").split("\n").filter(Boolean),
  };
}

export async function serve(variant: EngramVariant, extra: Parameters<typeof startEngramServer>[0] = {}): Promise<EngramServer> {
  const s = await startEngramServer({ variant, ...extra });
  servers.push(s);
  return s;
}

/** What the fixture server Shell started reports about itself (and remember its pid to stop it). */
export async function fixtureReport(endpoint: Endpoint): Promise<{ pid: number; argv: string[]; cwd: string; env: Record<string, string> }> {
  const answer = await loopbackGet(endpoint, "/__fixture", 5000);
  if (answer.kind !== "answer") throw new Error(`no fixture server on ${endpoint.port}: ${JSON.stringify(answer)}`);
  const report = JSON.parse(answer.body);
  pids.add(report.pid);
  return report;
}
