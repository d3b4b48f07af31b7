/**
 * The registry an install asks (spec: "User npm settings"): the one the
 * filtered npmrc names, else the one our npm reports by default, asked in
 * a neutral folder so no project's .npmrc chooses it. Each answer of npm's
 * is recorded (core/registry-record.ts), so the startup offer asks the same
 * registry without starting npm.
 */
import { join } from "../core/native-path";
import type { Layout } from "../core/layout";
import { npmQueryEnvironment, type Env } from "../core/environment";
import { npmrcRegistry } from "../core/npmrc";
import { recordedRegistryFor, registryFingerprint, registryRecordText, type RegistryInputs } from "../core/registry-record";
import { ensureRealFolder, readTextOrNull, writeFileAtomic } from "../io/files";
import { run } from "../io/process";

/** Our npm's own folder in the runtime. */
function npmRoot(layout: Layout): string {
  return layout.platform === "win32" ? join(layout.nodeDir, "node_modules", "npm") : join(layout.nodeDir, "lib", "node_modules", "npm");
}

/**
 * The registry npm's configuration names: the filtered npmrc, else our npm's default. `record: false` (doctor, which
 * writes nothing) makes no folder and leaves npm's answer unrecorded (an install made npm's cache folder already).
 */
export async function configuredRegistry(layout: Layout, npmrc: string, env: Env, timeoutMs = 60_000, record = true): Promise<string> {
  const fromFile = npmrcRegistry(npmrc, env);
  if (fromFile) return fromFile;
  const npmCli = join(npmRoot(layout), "bin", "npm-cli.js");
  const clean = npmQueryEnvironment(env);
  // A neutral folder: npm reads a project's .npmrc from the folder it runs in (or the nearest one
  // above with a package.json), so the user's current directory must not choose the registry.
  // --prefix pins npm's project folder to our runtime, which holds no .npmrc.
  const neutral = layout.nodeDir;
  // Nothing of npm's in the user's ~/.npm (issue 39, 5): its cache folder is ours, made first with our mode (npm would
  // make it with the umask's), and it writes no log file there or anywhere, whether it answers or fails.
  if (record) {
    await ensureRealFolder(join(layout.prefix, "npm"), 0o700);
    await ensureRealFolder(layout.npm.cache, 0o700);
  }
  const result = await run(
    layout.node,
    [
      npmCli,
      "config",
      "get",
      "registry",
      `--userconfig=${layout.pnpm.npmrc}`,
      `--globalconfig=${layout.npm.globalconfig}`,
      `--prefix=${neutral}`,
      `--cache=${layout.npm.cache}`,
      "--logs-max=0",
      "--update-notifier=false",
    ],
    { env: clean, cwd: neutral, timeoutMs },
  );
  const answer = result.stdout.trim();
  if (result.code !== 0 || !/^https?:\/\//.test(answer)) throw new Error("npm did not report a registry");
  const registry = answer.endsWith("/") ? answer : answer + "/";
  if (record) await recordRegistry(layout, npmrc, env, registry);
  return registry;
}

/**
 * Keep npm's answer with the fingerprint of what it depends on, so the next
 * launch's startup offer need not start npm (recordedRegistry). Only a
 * cache: when it cannot be written, npm is asked again next time.
 */
async function recordRegistry(layout: Layout, npmrc: string, env: Env, registry: string): Promise<void> {
  try {
    const fingerprint = registryFingerprint(await registryInputs(layout, npmrc, env));
    await ensureRealFolder(join(layout.prefix, "npm"), 0o700);
    await writeFileAtomic(layout.npm.registryRecord, registryRecordText(fingerprint, registry), 0o600);
  } catch {
    // Unrecorded.
  }
}

/** What configuredRegistry's answer depends on, read from the prefix (see core/registry-record.ts). */
async function registryInputs(layout: Layout, npmrc: string, env: Env): Promise<RegistryInputs> {
  const root = npmRoot(layout);
  const read = async (path: string) => [path, await readTextOrNull(path).catch(() => null)] as const;
  let npmVersion: string | null = null;
  try {
    const version = (JSON.parse((await readTextOrNull(join(root, "package.json"))) ?? "{}") as { version?: unknown }).version;
    npmVersion = typeof version === "string" ? version : null;
  } catch {
    npmVersion = null;
  }
  return {
    npmCli: join(root, "bin", "npm-cli.js"),
    npmVersion,
    files: [[layout.pnpm.npmrc, npmrc], await read(join(layout.nodeDir, ".npmrc")), await read(layout.npm.globalconfig), await read(join(root, "npmrc"))],
    env,
  };
}

/**
 * configuredRegistry for a launch that has `timeoutMs` at most (the startup
 * offer): the npmrc's registry; else npm's answer as last recorded for these
 * same inputs (by the install, an upgrade or an earlier launch); else npm is
 * asked within `timeoutMs` and its answer recorded for the next launch. Null
 * when npm does not answer in time or at all; the record is only ever a
 * cache, never a reason to fail. `record: false`: npm's answer is not
 * recorded (doctor reads only).
 */
export async function recordedRegistry(layout: Layout, npmrc: string, env: Env, timeoutMs: number, record = true): Promise<string | null> {
  const fromFile = npmrcRegistry(npmrc, env);
  if (fromFile) return fromFile;
  const fingerprint = registryFingerprint(await registryInputs(layout, npmrc, env));
  const recorded = recordedRegistryFor(await readTextOrNull(layout.npm.registryRecord).catch(() => null), fingerprint);
  if (recorded) return recorded;
  // configuredRegistry records npm's answer for the next launch.
  return configuredRegistry(layout, npmrc, env, timeoutMs, record).catch(() => null);
}
