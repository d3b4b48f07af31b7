/**
 * The GitHub Action (action.yml, installers/action/dist/index.cjs) run as a
 * runner runs it: the committed bundle under this Node, with the runner's
 * variables (GITHUB_PATH, GITHUB_OUTPUT, GITHUB_ENV, RUNNER_TEMP,
 * RUNNER_TOOL_CACHE, RUNNER_OS, RUNNER_ARCH) and its inputs as INPUT_*,
 * against a local download folder holding the fixture binary and its
 * SHA256SUMS (GENTLE_SHELL_SETUP_DOWNLOAD, as install.sh reads it) and the
 * fixture mirror and registry. It must write only the runner's files, its
 * tool-cache folder and nothing in HOME; a second run with the same tool
 * cache installs nothing.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { promises as fs } from "node:fs";
import { createHash } from "node:crypto";
import { basename, join } from "pathe";
import { fixtures } from "../support/context";
import { homeEnv } from "../support/fixtures";
import { registryLine, writeNpmrc } from "../support/npmrc";
import { runCommand } from "../support/proc";
import { serveFiles } from "../support/http-util";
import { REPO_ROOT } from "../support/paths";
import { scratchDir } from "../support/scratch";

const f = fixtures();
const entry = join(REPO_ROOT, "installers", "action", "dist", "index.cjs");
const latest = f.releases[f.releases.length - 1]!;
let close: () => Promise<void>;
let base: string;
/** Requests the download folder answered, by path; each runner has a folder of its own, /<n>/. */
const requests: string[] = [];
let runners = 0;

beforeAll(async () => {
  const dir = scratchDir("gss-action-download-");
  const digest = createHash("sha256")
    .update(await fs.readFile(f.binary!))
    .digest("hex");
  await fs.writeFile(join(dir, "SHA256SUMS"), `${digest}  ${basename(f.binary!)}\n`);
  const files = new Map([
    ["/SHA256SUMS", join(dir, "SHA256SUMS")],
    [`/${basename(f.binary!)}`, f.binary!],
  ]);
  ({ base, close } = await serveFiles(files, { seen: requests, rewrite: (path) => path.replace(/^\/[0-9]+\//, "/") }));
});

afterAll(async () => {
  await close();
});

interface Runner {
  /** This runner's download folder. */
  download: string;
  root: string;
  home: string;
  temp: string;
  toolCache: string;
}

async function runner(): Promise<Runner> {
  const root = scratchDir("gss-action-");
  const r = { download: `/${++runners}`, root, home: join(root, "home"), temp: join(root, "temp"), toolCache: join(root, "toolcache") };
  for (const dir of [r.home, r.temp, r.toolCache]) await fs.mkdir(dir, { recursive: true });
  await writeNpmrc(r.home, [registryLine(f.registryUrl)]);
  return r;
}

/** One run of the action's entry; `step` names this run's GITHUB_* files, made empty as the runner makes them. */
async function runAction(r: Runner, step: string, inputs: Record<string, string>) {
  const files = { path: join(r.root, `${step}.path`), output: join(r.root, `${step}.output`), env: join(r.root, `${step}.env`) };
  for (const file of Object.values(files)) await fs.writeFile(file, "");
  const env = homeEnv(r.home, {
    GITHUB_PATH: files.path,
    GITHUB_OUTPUT: files.output,
    GITHUB_ENV: files.env,
    RUNNER_TEMP: r.temp,
    RUNNER_TOOL_CACHE: r.toolCache,
    RUNNER_OS: "Linux",
    RUNNER_ARCH: "X64",
    GENTLE_SHELL_SETUP_DOWNLOAD: base + r.download,
    ...Object.fromEntries(Object.entries(inputs).map(([k, v]) => [`INPUT_${k.toUpperCase()}`, v])),
  });
  requests.splice(0, requests.length, ...requests.filter((p) => !p.startsWith(`${r.download}/`)));
  const result = await runCommand(process.execPath, [entry], { env, cwd: r.root });
  const read = async (file: string) => fs.readFile(file, "utf8");
  return {
    ...result,
    log: result.stdout + result.stderr,
    path: await read(files.path),
    outputs: outputsOf(await read(files.output)),
    env: await read(files.env),
    downloads: requests.filter((p) => p.startsWith(`${r.download}/`)).map((p) => p.slice(r.download.length)),
  };
}

/** GITHUB_OUTPUT's `name<<delimiter` blocks, as @actions/core writes them. */
function outputsOf(text: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const m of text.matchAll(/^([^\n<]+)<<(\S+)\n([\s\S]*?)\n\2$/gm)) out[m[1]!] = m[3]!;
  return out;
}

/** Every file and folder under `dir`, relative, with its modification time. */
async function tree(dir: string): Promise<Map<string, number>> {
  const out = new Map<string, number>();
  for (const name of await fs.readdir(dir, { recursive: true })) {
    const s = await fs.lstat(join(dir, name));
    out.set(name, s.mtimeMs);
  }
  return out;
}

describe.concurrent("the GitHub Action", () => {
  it("installs an exact release into the tool cache, writes only the runner's files, and a second run installs nothing", async () => {
    const r = await runner();
    const npmrc = await fs.readFile(join(r.home, ".npmrc"), "utf8");
    const first = await runAction(r, "first", { version: latest.shell, source: f.mirrorUrl, updates: "" });
    expect(first.code, first.log).toBe(0);
    const bin = join(r.toolCache, "gentle-shell", latest.shell, "linux-x64", "home", ".gentle-shell", "bin");
    expect(first.path).toBe(`${bin}\n`);
    expect(first.outputs).toEqual({ "gentle-shell-version": latest.shell, "pi-version": latest.pi });
    expect(first.env).toMatch(/^GENTLE_SHELL_UPDATES<<(\S+)\noff\n\1\n$/);
    expect(first.downloads).toEqual(["/SHA256SUMS", `/${basename(f.binary!)}`]);
    // Nothing in HOME: no profile, no prefix; the user's npm settings as they were.
    expect(await fs.readdir(r.home)).toEqual([".npmrc"]);
    expect(await fs.readFile(join(r.home, ".npmrc"), "utf8")).toBe(npmrc);
    // The runner's files, the tool cache's folder for this release and target, and an empty RUNNER_TEMP.
    expect((await fs.readdir(r.root)).sort()).toEqual(["first.env", "first.output", "first.path", "home", "temp", "toolcache"]);
    expect(await fs.readdir(r.temp)).toEqual([]);
    expect((await fs.readdir(join(r.toolCache, "gentle-shell", latest.shell))).sort()).toEqual(["linux-x64", "linux-x64.complete"]);
    // The launcher on that PATH answers as the outputs say, in the job's own HOME.
    const v = await runCommand("gentle-shell", ["--version"], { env: homeEnv(r.home, { PATH: `${bin}:${process.env.PATH}` }) });
    expect(v.stdout.split("\n").slice(0, 2)).toEqual([`gentle-shell ${latest.shell}`, `pi ${latest.pi}`]);

    const cached = await tree(r.toolCache);
    const second = await runAction(r, "second", { version: latest.shell, source: f.mirrorUrl, updates: "notify" });
    expect(second.code, second.log).toBe(0);
    expect(second.log).toContain(`gentle-shell ${latest.shell} for linux-x64 found in the tool cache`);
    expect(second.log).toContain("nothing was installed");
    expect(second.downloads).toEqual([]);
    expect(await tree(r.toolCache)).toEqual(cached);
    expect(second.path).toBe(`${bin}\n`);
    expect(second.outputs).toEqual(first.outputs);
    expect(second.env).toMatch(/^GENTLE_SHELL_UPDATES<<(\S+)\nnotify\n\1\n$/);
    expect(await fs.readdir(r.home)).toEqual([".npmrc"]);
  });

  it("installs latest for the job only, in RUNNER_TEMP, and caches nothing", async () => {
    const r = await runner();
    const run = await runAction(r, "step", { version: "latest", source: f.mirrorUrl, updates: "on" });
    expect(run.code, run.log).toBe(0);
    expect(run.log).toContain("version latest: installed for this job only, not cached");
    expect(run.path).toMatch(new RegExp(`^${r.temp}/gentle-shell-[^/]+/home/\\.gentle-shell/bin\\n$`));
    expect(run.outputs).toEqual({ "gentle-shell-version": latest.shell, "pi-version": latest.pi });
    expect(run.env).toMatch(/^GENTLE_SHELL_UPDATES<<(\S+)\non\n\1\n$/);
    expect(await fs.readdir(r.toolCache)).toEqual([]);
    expect(await fs.readdir(r.home)).toEqual([".npmrc"]);
  });

  it("refuses a bad input in one sentence before anything is downloaded or written", async () => {
    const r = await runner();
    for (const [inputs, sentence] of [
      [{ version: "4.x" }, 'the version input takes an exact Gentle Shell version such as 4.1.0, or latest; not "4.x"'],
      [{ version: "../4.1.0" }, 'the version input takes an exact Gentle Shell version such as 4.1.0, or latest; not "../4.1.0"'],
      [{ updates: "sometimes" }, 'the updates input takes on, notify or off; not "sometimes"'],
    ] as const) {
      const run = await runAction(r, "bad", inputs);
      expect(run.code).toBe(1);
      expect(run.stdout.trim()).toBe(`::error::${sentence}`);
      expect(run.downloads).toEqual([]);
      expect([run.path, run.env, run.outputs]).toEqual(["", "", {}]);
    }
    expect(await fs.readdir(r.toolCache)).toEqual([]);
    expect(await fs.readdir(r.home)).toEqual([".npmrc"]);
  });

  it("leaves no tool-cache folder when the install fails, so the next run tries again", async () => {
    const r = await runner();
    const run = await runAction(r, "step", { version: "9.9.9", source: f.mirrorUrl });
    expect(run.code, run.log).toBe(1);
    expect(run.stdout).toMatch(/^::error::gentle-shell-setup install failed \(exit \d+\); its own sentence is above$/m);
    expect(run.path).toBe("");
    expect(await fs.readdir(join(r.toolCache, "gentle-shell", "9.9.9"))).not.toContain("linux-x64");
    expect(await fs.readdir(r.home)).toEqual([".npmrc"]);
  });
});
