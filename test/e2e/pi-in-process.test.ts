/**
 * Pi in the launcher's own process (issue 29; src/engine/pi-handover.ts): a
 * launch that starts Pi loads Pi's CLI into the engine's Node. Each test runs
 * the installed launcher and the same Pi started directly (its Node, its
 * cli.js, the arguments and environment the launcher gives it) and asserts
 * the same outcome, with the test extension gss-process.js recording what
 * the Pi process looks like from inside.
 *
 * Where Pi runs tells itself by the compile cache: in the launcher's process
 * Pi finds the cache the engine's start file turned on in the version's own
 * folder; a fresh Node gets Pi's own default (the system's temporary folder,
 * a scratch TMPDIR here). NODE_COMPILE_CACHE is unset for that reason.
 */
import { spawn } from "node:child_process";
import { promises as fs, readdirSync, readFileSync } from "node:fs";
import { join } from "pathe";
import { beforeAll, describe, expect, it } from "vitest";
import { fixtures } from "../support/context";
import { installed, type Installed } from "../support/installed";
import { addPiExtension, piEnv } from "../support/pi-home";
import type { RunResult } from "../support/proc";
import { stubModelClient, writeStubModelConfig } from "../support/stub-model";
import { Terminal } from "../support/tmux";

const f = fixtures();
let i: Installed;
let agent: string;
let scratch: string;
let direct: { node: string; cli: string; gentlePi: string; versionDir: string };
let model: Awaited<ReturnType<ReturnType<typeof stubModelClient>["scope"]>>;

interface ProcessRecord {
  pid: number;
  argv: string[];
  execArgv: string[];
  title: string;
  kernelName: string | null;
  umask: number;
  httpAgentProxy: boolean;
  httpsAgentProxy: boolean;
  signalListeners: Record<string, number>;
  compileCache: string | null;
  preloaded: { argv1: string } | null;
  engineScripts: string[];
  streamErrorListeners: { stdout: number; stderr: number };
  env: Record<string, string>;
}

beforeAll(async () => {
  i = await installed(f);
  agent = join(i.prefix, "agent");
  scratch = join(i.root, "in-process");
  await fs.mkdir(join(scratch, "tmp"), { recursive: true });
  model = await stubModelClient(f.modelUrl).scope();
  await writeStubModelConfig(agent, model.baseUrl);
  await addPiExtension(agent, "gss-process.js");
  const id = (await fs.readFile(join(i.prefix, "current"), "utf8").catch(async () => fs.readlink(join(i.prefix, "current")))).trim().split("/").pop()!;
  const versionDir = join(i.prefix, "versions", id);
  const piRoot = join(versionDir, "node_modules", "@earendil-works", "pi-coding-agent");
  const bin = JSON.parse(readFileSync(join(piRoot, "package.json"), "utf8")).bin;
  const nodeDir = readdirSync(join(i.prefix, "runtime")).find((name) => name.startsWith("node-"))!;
  direct = {
    node: join(i.prefix, "runtime", nodeDir, "bin", "node"),
    cli: join(piRoot, typeof bin === "string" ? bin : bin.pi),
    gentlePi: join(versionDir, "node_modules", "gentle-pi"),
    versionDir,
  };
});

/** The launch environment: no NODE_COMPILE_CACHE (see above), a scratch TMPDIR. */
function launchEnv(extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  return piEnv(i.env, { NODE_COMPILE_CACHE: undefined, TMPDIR: join(scratch, "tmp"), ...extra });
}

let records = 0;
async function recorded<T>(run: (file: string) => Promise<T>): Promise<{ result: T; record: ProcessRecord }> {
  const file = join(scratch, `record-${++records}.json`);
  const result = await run(file);
  return { result, record: JSON.parse(await fs.readFile(file, "utf8")) as ProcessRecord };
}

/** The launcher, with the pid of the process it started. */
function launch(args: string[], env: NodeJS.ProcessEnv): Promise<RunResult & { pid: number }> {
  return started(i.gs, args, env);
}

/** Pi started directly, as the launcher gives it its arguments (the version's gentle-pi first). */
function piDirectly(args: string[], env: NodeJS.ProcessEnv): Promise<RunResult & { pid: number }> {
  return started(direct.node, [direct.cli, "--extension", direct.gentlePi, ...args], env);
}

function started(command: string, args: string[], env: NodeJS.ProcessEnv, during?: (pid: number) => Promise<void>) {
  return new Promise<RunResult & { pid: number }>((resolve, reject) => {
    const child = spawn(command, args, { env, cwd: i.home, stdio: ["ignore", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    child.stdout.setEncoding("utf8").on("data", (d: string) => (stdout += d));
    child.stderr.setEncoding("utf8").on("data", (d: string) => (stderr += d));
    child.on("error", reject);
    child.on("close", (code, signal) => resolve({ code, signal, stdout, stderr, pid: child.pid! }));
    if (during) during(child.pid!).catch(reject);
  });
}

/** What a fresh Node would not show: the compile cache folder aside, everything the two records share. */
function comparable(record: ProcessRecord) {
  const { pid: _pid, compileCache: _cache, engineScripts: _scripts, env, ...rest } = record;
  const { GSS_PROCESS_RECORD: _file, ...pure } = env;
  return { ...rest, env: pure };
}

describe("Pi in the launcher's own process", () => {
  it("-p: Pi runs in the process the launcher started and sees itself as Pi started directly would (argv, Node options, title, umask, agents, signals, environment)", async () => {
    // Proxies in the environment (not used for the loopback model): the engine gave the global agents their settings
    // at its start (src/io/env-proxy.ts); Pi started directly has Node's plain agents, and so must Pi in the launcher's process.
    const env = launchEnv({ HTTP_PROXY: "http://127.0.0.1:9", HTTPS_PROXY: "http://127.0.0.1:9", NO_PROXY: "127.0.0.1,localhost" });
    const ours = await recorded((file) => launch(["-p", "Say hi."], { ...env, GSS_PROCESS_RECORD: file }));
    expect(ours.result.code, ours.result.stderr).toBe(0);
    expect(ours.result.stdout).toBe("Hello from the stub model.\n");
    // No second process: the pid the launcher got is Pi's, and Pi found the engine's compile cache on.
    expect(ours.record.pid).toBe(ours.result.pid);
    expect(ours.record.compileCache?.startsWith(join(direct.versionDir, ".gentle-shell", "compile-cache"))).toBe(true);
    expect(ours.record.argv).toEqual([direct.node, direct.cli, "--extension", direct.gentlePi, "-p", "Say hi."]);
    expect(ours.record.execArgv).toEqual([]);
    expect(ours.record.httpAgentProxy).toBe(false);
    expect(ours.record.httpsAgentProxy).toBe(false);
    expect(ours.record.title).toBe("pi");
    if (process.platform === "linux") expect(ours.record.kernelName).toBe("pi");
    // The launch part alone decided it: the whole engine was never read into this process.
    expect(ours.record.engineScripts).toEqual(["start.cjs", "launch.cjs"]);
    // The same Pi, started directly with the environment Pi got from the launcher.
    const piEnvironment = { ...ours.record.env };
    delete piEnvironment.GSS_PROCESS_RECORD;
    const theirs = await recorded((file) => piDirectly(["-p", "Say hi."], { ...piEnvironment, GSS_PROCESS_RECORD: file }));
    expect(theirs.result.code, theirs.result.stderr).toBe(0);
    expect(theirs.result.stdout).toBe(ours.result.stdout);
    expect(comparable(ours.record)).toEqual(comparable(theirs.record));
    // The variables only the engine had are gone (the user's NODE_OPTIONS, saved by the launcher, among them).
    expect(ours.record.env).not.toHaveProperty("GENTLE_SHELL_USER_NODE_OPTIONS");
  });

  it("the launch part is the head of the version's engine, cut at install, and a fraction of it", async () => {
    const dir = join(direct.versionDir, ".gentle-shell");
    const part = await fs.readFile(join(dir, "launch.cjs"));
    const engine = await fs.readFile(join(dir, "engine.cjs"));
    expect(engine.subarray(0, part.length).equals(part)).toBe(true);
    expect(part.length).toBeLessThan(engine.length / 4);
  });

  it("a launch that would place Pi's tools goes on in the full engine, in the same process, and the next launch does not", async () => {
    // Pi's tools taken away (they are ours: our markers), and a launch that may download: the launch part hands over.
    await fs.rm(join(agent, "bin"), { recursive: true, force: true });
    const marks = join(scratch, "tools-marks.jsonl");
    const env = launchEnv({ PI_OFFLINE: undefined, GSS_STEP_TIMES: marks });
    const first = await recorded((file) => launch(["-p", "Say hi."], { ...env, GSS_PROCESS_RECORD: file }));
    expect(first.result.code, first.result.stderr).toBe(0);
    expect(first.result.stdout).toBe("Hello from the stub model.\n");
    expect(first.record.pid).toBe(first.result.pid);
    expect(first.record.engineScripts).toEqual(["start.cjs", "launch.cjs", "engine.cjs"]);
    const seen = (await fs.readFile(marks, "utf8"))
      .trim()
      .split("\n")
      .map((line) => (JSON.parse(line) as { mark: string }).mark);
    expect(seen.filter((mark) => mark.startsWith("launch: full engine"))).toEqual(["launch: full engine (Pi's tools)"]);
    // The full engine started the launch again from its beginning, and placed the tools once.
    expect(seen.filter((mark) => mark === "launch: install resolved")).toHaveLength(2);
    expect((await fs.readdir(join(agent, "bin"))).filter((name) => !name.startsWith(".")).sort()).toEqual(["fd", "rg"]);
    const second = await recorded((file) => launch(["-p", "Say hi."], { ...env, GSS_PROCESS_RECORD: file }));
    expect(second.result.code, second.result.stderr).toBe(0);
    expect(second.record.engineScripts).toEqual(["start.cjs", "launch.cjs"]);
  });

  it("Pi's own --version and --help print what Pi started directly prints", async () => {
    const env = launchEnv();
    const piEnvironment = { ...env, PI_CODING_AGENT_DIR: agent, GENTLE_PI_AGENT_HOME: agent };
    const version = await launch(["--offline", "--version"], env);
    const theirVersion = await piDirectly(["--offline", "--version"], piEnvironment);
    expect(version.code, version.stderr).toBe(0);
    expect(version.stdout).toBe(theirVersion.stdout);
    expect(version.stdout.trim()).toMatch(/^\d+\.\d+\.\d+$/);
    const { result: help, record } = await recorded((file) => launch(["--help"], { ...env, GSS_PROCESS_RECORD: file }));
    const theirHelp = await piDirectly(["--help"], piEnvironment);
    expect(help.code, help.stderr).toBe(0);
    // The engine printed its lines first; Pi then has the streams as Pi started directly has them.
    expect(record.streamErrorListeners).toEqual({ stdout: 0, stderr: 0 });
    expect(record.engineScripts).toEqual(["start.cjs", "launch.cjs"]);
    // Gentle Shell's commands first, then Pi's own help, unchanged and in order.
    expect(help.stdout.startsWith("Gentle Shell commands:\n")).toBe(true);
    expect(help.stdout.endsWith(theirHelp.stdout)).toBe(true);
  });

  it("a user's NODE_OPTIONS reaches Pi as before: Pi runs in a fresh Node that loaded the preload once", async () => {
    const preload = join(scratch, "preload.cjs");
    const log = join(scratch, "preload.log");
    await fs.writeFile(
      preload,
      `require("node:fs").appendFileSync(${JSON.stringify(log)}, process.argv[1] + "\\n"); globalThis.__gssPreloaded = { argv1: process.argv[1] };\n`,
    );
    const env = launchEnv({ NODE_OPTIONS: `--require ${preload}` });
    const ours = await recorded((file) => launch(["-p", "Say hi."], { ...env, GSS_PROCESS_RECORD: file }));
    expect(ours.result.code, ours.result.stderr).toBe(0);
    expect(ours.record.env.NODE_OPTIONS).toBe(`--require ${preload}`);
    expect(ours.record.preloaded).toEqual({ argv1: direct.cli });
    // Only Pi's Node loaded it (the engine runs without the user's NODE_OPTIONS), and Pi's own cache is its default.
    expect((await fs.readFile(log, "utf8")).trim().split("\n")).toEqual([direct.cli]);
    expect(ours.record.compileCache?.startsWith(join(scratch, "tmp"))).toBe(true);
    // Still one process (execve): signals and the exit code are Pi's.
    expect(ours.record.pid).toBe(ours.result.pid);
  });

  it.each(["SIGTERM", "SIGINT"] as const)("%s while Pi waits for the model ends the launch as it ends Pi started directly", async (signal) => {
    const slow = await stubModelClient(f.modelUrl).scope();
    await slow.setDelay(30_000);
    await writeStubModelConfig(agent, slow.baseUrl);
    try {
      const env = launchEnv();
      const piEnvironment = { ...env, PI_CODING_AGENT_DIR: agent, GENTLE_PI_AGENT_HOME: agent };
      const whenAsked = (pid: number) => async () => {
        const seen = (await slow.requests()).length;
        const end = Date.now() + 60_000;
        while ((await slow.requests()).length === seen) {
          if (Date.now() > end) throw new Error("the model was never asked");
          await new Promise((r) => setTimeout(r, 100));
        }
        process.kill(pid, signal);
      };
      const ours = await started(i.gs, ["-p", "Say hi."], env, (pid) => whenAsked(pid)());
      const theirs = await started(direct.node, [direct.cli, "--extension", direct.gentlePi, "-p", "Say hi."], piEnvironment, (pid) => whenAsked(pid)());
      expect({ code: ours.code, signal: ours.signal }).toEqual({ code: theirs.code, signal: theirs.signal });
      expect(ours.stdout).toBe(theirs.stdout);
    } finally {
      await writeStubModelConfig(agent, model.baseUrl);
    }
  });

  it("Ctrl+C twice in the TUI (tmux) ends the session with the exit status Pi started directly has", async () => {
    const status = async (command: string[], env: NodeJS.ProcessEnv, name: string) => {
      const file = join(scratch, `${name}.status`);
      const quoted = command.map((c) => `'${c.replace(/'/g, `'\\''`)}'`).join(" ");
      const t = await Terminal.open({ command: ["sh", "-c", `${quoted}; echo $? > '${file}'`], cwd: i.home, env, keepOnExit: true });
      try {
        await t.waitForPi("idle");
        await t.keys("C-c", "C-c");
        await t.waitForExit();
        return (await fs.readFile(file, "utf8")).trim();
      } finally {
        await t.close();
      }
    };
    const env = launchEnv();
    const ours = await status([i.gs], env, "ours");
    const theirs = await status(
      [direct.node, direct.cli, "--extension", direct.gentlePi],
      { ...env, PI_CODING_AGENT_DIR: agent, GENTLE_PI_AGENT_HOME: agent, PI_SKIP_VERSION_CHECK: "1" },
      "theirs",
    );
    expect(ours).toBe(theirs);
  });
});
