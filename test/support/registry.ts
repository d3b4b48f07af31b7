/**
 * A real npm registry for the tests: verdaccio 6.8.0 as a child process on
 * 127.0.0.1. `gentle-pi` and `gentle-engram` are local only (the fixtures are
 * published fresh on every start); everything else is proxied to the uplink, which is whatever
 * `npm config get registry` names at run time.
 *
 * Storage (so reruns do not fetch Pi's ~123 packages again, and two starts,
 * e.g. a test run and a demo, can run at the same time):
 * - `<CACHE_DIR>/registry/storage` is the shared cache of proxied packages.
 *   No verdaccio ever writes it.
 * - Each start gets its own storage, `<CACHE_DIR>/registry/runs/<pid>-<rand>`,
 *   seeded with hard links to the cache (same file system, no copying).
 *   verdaccio writes every file to a temporary name and renames it, so it
 *   never changes a linked file in place.
 * - `persist()` (also run by `stop()`) links new or replaced files back
 *   into the cache, each with one rename, so concurrent persists are safe
 *   (the last complete file wins). `gentle-pi` and verdaccio's database of
 *   local packages are never persisted.
 * - Run folders of processes that are gone are removed at the next start.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { randomBytes } from "node:crypto";
import { createWriteStream } from "node:fs";
import { link, lstat, mkdir, readdir, rename, rm, stat, unlink, writeFile } from "node:fs/promises";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { GENTLE_ENGRAM_VERSIONS, packGentleEngram } from "./gentle-engram";
import { GENTLE_PI_VERSIONS, packGentlePi, type PackedGentlePi } from "./gentle-pi";
import { REPO_ROOT } from "./paths";
import { OUTPUT_WAIT_MS } from "./limits";
import { configuredRegistry, freePort, runChecked, waitForHttp } from "./proc";
import { toolchain } from "./toolchain";

export interface StartRegistryOptions {
  /** Uplink URL; default: `npm config get registry`. */
  uplink?: string;
  /** Fixture gentle-pi versions to publish (the last becomes `latest`). Default 4.0.0, 4.1.0. */
  gentlePiVersions?: readonly string[];
  /** A registry of a test's own: an empty storage, never seeded from or persisted into the shared cache, no uplink. */
  isolated?: boolean;
  /**
   * For `npm run bench`: a fixed snapshot. Package documents already in the
   * cache are served as they are for the whole run (the uplink's maxage is
   * far longer than any run), so no uplink refresh lands between timed runs;
   * only a package the cache does not hold yet is fetched, once.
   */
  frozen?: boolean;
}

export interface Registry {
  /** Base URL with a trailing slash, e.g. `http://127.0.0.1:4873/`. */
  url: string;
  uplink: string;
  storage: string;
  logFile: string;
  published: PackedGentlePi[];
  /** Publish a package tarball with npm, tagged `latest` (or `tag`), as a maintainer would. */
  publish(tarball: string, tag?: string): Promise<void>;
  /** Copy what this run fetched into the shared cache. */
  persist(): Promise<void>;
  stop(): Promise<void>;
}

const SKIP_PERSIST = /(^|\/)(gentle-pi(\/|$)|gentle-engram(\/|$)|\.verdaccio-db\.json$|\.sinopia-db\.json$)|\.tmp/;

export async function startRegistry(options: StartRegistryOptions = {}): Promise<Registry> {
  const { CACHE_DIR } = await toolchain();
  const uplink = options.uplink ?? (await configuredRegistry());
  const root = join(CACHE_DIR, "registry");
  const cache = join(root, "storage");
  const runs = join(root, "runs");
  await mkdir(cache, { recursive: true });
  await mkdir(runs, { recursive: true });
  await removeDeadRuns(runs);

  // Said at once, in one sentence: an uplink that fails would otherwise surface as pnpm's "not in the npm registry".
  if (!options.isolated && options.uplink === undefined) await checkUplink(uplink, join(cache, "@earendil-works", "pi-coding-agent"));

  const runDir = join(runs, `${process.pid}-${randomBytes(4).toString("hex")}`);
  const storage = join(runDir, "storage");
  await mkdir(storage, { recursive: true });
  if (!options.isolated) await linkTree(cache, storage, () => true);

  const configFile = join(runDir, "config.yaml");
  await writeFile(
    configFile,
    // Otherwise every package document is asked of the uplink again (a conditional request, 304 when unchanged):
    // with documents cached for a while, one refreshed after an upstream publish could require a version of
    // another that is still cached without it, and npm then fails with ETARGET (seen: an @aws-sdk release
    // published between two documents' fetches). Installs from a lockfile ask for no document at all.
    verdaccioConfig({ storage, htpasswd: join(runDir, "htpasswd"), uplink, proxy: !options.isolated, maxage: options.frozen ? "3650d" : "0" }),
  );
  const logFile = join(runDir, "verdaccio.log");

  let child: ChildProcess | undefined;
  let url = "";
  // The running child's exit, once it has exited. Each attempt has its own: a killed earlier child's
  // late exit event must never read as the next one's.
  let exitOf: () => string | null = () => null;
  for (let attempt = 1; ; attempt++) {
    const port = await freePort();
    url = `http://127.0.0.1:${port}/`;
    const log = createWriteStream(logFile, { flags: "a" });
    const started = spawn(process.execPath, [verdaccioBin(), "--config", configFile, "--listen", `127.0.0.1:${port}`], {
      cwd: runDir,
      stdio: ["ignore", "pipe", "pipe"],
      env: { ...process.env, NODE_OPTIONS: "" },
    });
    let exited: string | null = null;
    started.stdout!.pipe(log);
    started.stderr!.pipe(log);
    started.on("exit", (code, signal) => (exited = `exit ${code ?? signal}, see ${logFile}`));
    child = started;
    exitOf = () => exited;
    try {
      // No clock of its own (issue 23): a loaded machine starts verdaccio slowly, and only an exit
      // (a port taken meanwhile, say) is worth another attempt.
      await waitForHttp(`${url}-/ping`, OUTPUT_WAIT_MS, () => exited);
      break;
    } catch (error) {
      started.kill("SIGKILL");
      if (attempt >= 3 || exited === null) throw error;
    }
  }
  const proc = child!;
  const killOnExit = () => proc.kill("SIGKILL");
  process.once("exit", killOnExit);

  let publisher: Promise<(tarball: string, tag: string) => Promise<void>> | undefined;
  const registry: Registry = {
    url,
    uplink,
    storage,
    logFile,
    published: [],
    async publish(tarball, tag = "latest") {
      if (!publisher) publisher = npmPublisher(url, runDir);
      await (await publisher)(tarball, tag);
    },
    persist: async () => {
      if (!options.isolated) await linkTree(storage, cache, (rel) => !SKIP_PERSIST.test(rel));
    },
    async stop() {
      process.removeListener("exit", killOnExit);
      if (exitOf() === null) {
        const done = new Promise((r) => proc.once("exit", r));
        proc.kill("SIGTERM");
        const timer = setTimeout(() => proc.kill("SIGKILL"), 3000);
        await done;
        clearTimeout(timer);
      }
      await registry.persist().catch(() => {});
      await rm(runDir, { recursive: true, force: true });
    },
  };
  try {
    for (const version of options.gentlePiVersions ?? GENTLE_PI_VERSIONS) {
      const tarball = await packGentlePi(version, join(runDir, "packed"));
      await registry.publish(tarball.file);
      registry.published.push(tarball);
    }
    // The fixture memory companion (./gentle-engram.ts), in the shared registry only.
    if (!options.isolated) {
      for (const { version, tag, policy } of GENTLE_ENGRAM_VERSIONS) {
        await registry.publish(await packGentleEngram(version, policy, join(runDir, "packed")), tag);
      }
    }
  } catch (error) {
    await registry.stop();
    throw error;
  }
  return registry;
}

function verdaccioBin(): string {
  const require = createRequire(join(REPO_ROOT, "package.json"));
  return join(dirname(require.resolve("verdaccio/package.json")), "bin", "verdaccio");
}

function verdaccioConfig(o: { storage: string; htpasswd: string; uplink: string; proxy: boolean; maxage: string }): string {
  const q = (s: string) => JSON.stringify(s);
  const proxy = o.proxy ? "\n    proxy: upstream" : "";
  return `# Written by test/support/registry.ts for one fixture run.
storage: ${q(o.storage)}
auth:
  htpasswd:
    file: ${q(o.htpasswd)}
    max_users: 1000
uplinks:
  upstream:
    url: ${q(o.uplink)}
    timeout: 60s
    maxage: ${o.maxage}
    max_fails: 5
    fail_timeout: 1m
    cache: true
packages:
  "gentle-pi":
    access: $all
    publish: $authenticated
    unpublish: $authenticated
  "gentle-engram":
    access: $all
    publish: $authenticated
    unpublish: $authenticated
  "@*/*":
    access: $all
    publish: $authenticated${proxy}
  "**":
    access: $all
    publish: $authenticated${proxy}
web:
  enable: false
max_body_size: 200mb
log:
  type: stdout
  format: pretty
  level: warn
`;
}

/** npm publish into `url`, as a maintainer would, through a throwaway user and user config. */
async function npmPublisher(url: string, runDir: string): Promise<(tarball: string, tag: string) => Promise<void>> {
  const name = `fixture-${randomBytes(4).toString("hex")}`;
  const response = await fetch(new URL(`-/user/org.couchdb.user:${name}`, url), {
    method: "PUT",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ name, password: randomBytes(12).toString("hex"), type: "user", roles: [] }),
  });
  const body = (await response.json().catch(() => ({}))) as { token?: string };
  if (!response.ok || !body.token) throw new Error(`verdaccio did not create a publishing user: HTTP ${response.status}`);
  const userconfig = join(runDir, "publish.npmrc");
  const authKey = url.replace(/^https?:/, "");
  await writeFile(userconfig, `registry=${url}\n${authKey}:_authToken=${body.token}\nupdate-notifier=false\nfund=false\naudit=false\n`, { mode: 0o600 });
  return async (tarball, tag) => {
    await runChecked("npm", ["publish", tarball, "--registry", url, "--userconfig", userconfig, "--tag", tag, "--ignore-scripts"], {
      cwd: runDir,
      env: cleanNpmEnv(),
    });
  };
}

/** The environment minus npm settings inherited from an `npm run` parent. */
function cleanNpmEnv(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env)) if (!/^npm_config_/i.test(k)) env[k] = v;
  return env;
}

/**
 * Hard-link every regular file of `from` into `to` where `to` lacks it or
 * holds a different file, each through a temporary name and one rename.
 */
async function linkTree(from: string, to: string, include: (rel: string) => boolean, rel = ""): Promise<void> {
  let names: string[];
  try {
    names = await readdir(join(from, rel));
  } catch {
    return;
  }
  for (const name of names) {
    const r = rel ? `${rel}/${name}` : name;
    if (!include(r)) continue;
    const source = join(from, r);
    const st = await lstat(source).catch(() => null);
    if (!st) continue;
    if (st.isDirectory()) {
      await mkdir(join(to, r), { recursive: true });
      await linkTree(from, to, include, r);
      continue;
    }
    if (!st.isFile()) continue;
    const target = join(to, r);
    const existing = await stat(target).catch(() => null);
    if (existing && existing.ino === st.ino && existing.dev === st.dev) continue;
    const tmp = `${target}.link-${process.pid}-${randomBytes(4).toString("hex")}`;
    try {
      await link(source, tmp);
      await rename(tmp, target);
    } catch (error) {
      await unlink(tmp).catch(() => {});
      if ((error as NodeJS.ErrnoException).code !== "ENOENT") throw error;
    }
  }
}

async function removeDeadRuns(runs: string): Promise<void> {
  for (const name of await readdir(runs).catch(() => [] as string[])) {
    const pid = Number(name.split("-")[0]);
    if (Number.isInteger(pid) && pid > 0 && isAlive(pid)) continue;
    await rm(join(runs, name), { recursive: true, force: true }).catch(() => {});
  }
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}

/**
 * The uplink (npm's configured registry) asked once for the real Pi, which
 * the fixtures proxy from it. When it does not answer and the cache does not
 * hold Pi either, the fixtures stop with why; with Pi cached they go on.
 */
async function checkUplink(uplink: string, cachedPi: string): Promise<void> {
  const { uplinkProblem } = await import("./uplink");
  const problem = await uplinkProblem(uplink);
  if (problem && !(await stat(cachedPi).catch(() => null))) throw new Error(problem);
}
