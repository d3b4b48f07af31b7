/**
 * A real install by the fixture binary into a scratch HOME, for the
 * end-to-end tests that then break its layout on purpose:
 *
 *   const i = await installed(f, { release: "4.0.0" });   // i.home, i.prefix, i.gs (the launcher), i.env
 *   const i = await installed(f, { extra: ["--no-setup"], stubModel: true }); // Pi then answers from the stub model
 *
 * An install into an ordinary home (the fixture registry) is made once per
 * run for each set of arguments and source and copied here
 * (./shared-install.ts); `fresh: true`, another registry, or a home of the
 * test's own make install anew.
 *
 * A test whose subject is the install run itself (its exit code and
 * output, a kill, a full disk, odd arguments, variables or .npmrc) starts it
 * with `runInstall(f, home, args, options)`, which asserts nothing, or takes
 * the same command from `prepareInstall` to start it its own way:
 *
 *   const r = await runInstall(f, home, ["--no-setup"], { npmrc: [registryLine(f.registryUrl), "//127.0.0.1:9/:_authToken=x"] });
 *
 * Every e2e install goes through these two: `installed` uses `runInstall` too.
 */
import { createHash } from "node:crypto";
import { registryLine, writeNpmrc } from "./npmrc";
import { promises as fs } from "node:fs";
import { dirname, join } from "pathe";
import { expect } from "vitest";
import type { FixtureInfo } from "./fixtures";
import { homeEnv } from "./fixtures";
import { launcherIn } from "./launch";
import { type RunResult, runCommand } from "./proc";
import { scratchDir } from "./scratch";
import { sharedTree } from "./shared-install";
import { writeStubModelConfig } from "./stub-model";

export interface Installed {
  /** The scratch folder the home lives in (pictured whole by the tests). */
  root: string;
  home: string;
  prefix: string;
  /** The installed launcher. */
  gs: string;
  env: NodeJS.ProcessEnv;
  /** What the install printed. */
  output: string;
}

export interface InstallOptions {
  /** Make the home inside the scratch folder (for example behind a link); default `<scratch>/home`. */
  home?: (root: string) => Promise<string>;
  release?: string;
  /** The registry ~/.npmrc names; default the fixture registry. */
  registry?: string;
  source?: string;
  extra?: string[];
  /** Files in the home before the install (a profile the PATH step then edits), by path relative to it. */
  files?: Record<string, string>;
  /** Install anew even where a copy of the run's shared install would do. */
  fresh?: boolean;
  /** Variables of the install run, over homeEnv(home, { SHELL: "/bin/bash" }); an install with its own variables is made anew. */
  env?: NodeJS.ProcessEnv;
  /** The exit code the install must end with (default 0: it worked); another one is made anew (a failed setup step exits 3, and installs all the same). */
  exitCode?: number;
  /** Afterwards, point the agent home (~/.gentle-shell/agent) at the stub model, for a test that starts Pi. */
  stubModel?: boolean;
}

/**
 * The folders of an install whose files a copy hard-links to the template's (./shared-install.ts): the runtimes,
 * the files of pnpm's store and each version's node_modules (hard links into those files already). Nothing writes
 * them in place. The store's index.db is not among them: pnpm writes that database in place.
 */
export const INSTALL_LINKED = ["home/.gentle-shell/runtime", "home/.gentle-shell/pnpm/store/*/files", "home/.gentle-shell/versions/*/node_modules"];

export async function installed(f: FixtureInfo, options: InstallOptions = {}): Promise<Installed> {
  const args = [...(options.release ? ["--release", options.release] : []), ...(options.extra ?? [])];
  // Another source (a folder) is part of the key: the copy remembers it (config/install-source).
  const shared = !options.fresh && !options.home && !options.registry && !options.env && !options.exitCode;
  let done: Installed;
  if (shared) {
    const key = createHash("sha256")
      .update(JSON.stringify([args, Object.entries(options.files ?? {}).sort(), ...(options.source ? [options.source] : [])]))
      .digest("hex")
      .slice(0, 16);
    const copy = await sharedTree(f, `install-${key}`, (root) => installInto(f, join(root, "home"), args, options), { linked: INSTALL_LINKED });
    done = result(copy.root, join(copy.root, "home"), copy.output);
  } else {
    const root = scratchDir("gss-installed-");
    const home = options.home ? await options.home(root) : join(root, "home");
    const r = await installInto(f, home, args, options);
    expect(r.code, r.stdout + r.stderr).toBe(options.exitCode ?? 0);
    done = result(root, home, r.stdout + r.stderr);
  }
  if (options.stubModel) await writeStubModelConfig(join(done.prefix, "agent"), `${f.modelUrl}/v1`);
  return done;
}

/** `installed`'s install into `home`: the registry's line in its .npmrc and `files` first, then the install, waited on until it exits. */
function installInto(f: FixtureInfo, home: string, args: string[], options: InstallOptions): Promise<RunResult> {
  return runInstall(f, home, args, {
    npmrc: [registryLine(options.registry ?? f.registryUrl)],
    source: options.source,
    files: options.files,
    env: options.env,
  });
}

export interface InstallRunOptions {
  /** The lines of the home's ~/.npmrc, written through writeNpmrc before the run; default the fixture registry's line alone. */
  npmrc?: readonly string[];
  /** What --source names; default the fixture mirror; null: no --source (the run names it another way, as GENTLE_SHELL_SOURCE). */
  source?: string | null;
  /** Variables over homeEnv(home, { SHELL: "/bin/bash" }). */
  env?: NodeJS.ProcessEnv;
  /** Files in the home before the install, by path relative to it. */
  files?: Record<string, string>;
  /** Where the installer starts; default the home. */
  cwd?: string;
}

/** The fixture binary's install, ready to start: `command` with `args`, in `cwd`, with `env`. */
export interface InstallCommand {
  command: string;
  args: string[];
  env: NodeJS.ProcessEnv;
  cwd: string;
}

/**
 * Make `home` (if it is not there), write its .npmrc (`npmrc`, default the fixture registry's line) and
 * `files`, and return the command `install --yes --source <source> ...args` in it, not started: for a test
 * that starts it its own way (spawned to be killed, under another umask, or twice at once).
 */
export async function prepareInstall(f: FixtureInfo, home: string, args: readonly string[] = [], options: InstallRunOptions = {}): Promise<InstallCommand> {
  await fs.mkdir(home, { recursive: true });
  await writeNpmrc(home, options.npmrc ?? [registryLine(f.registryUrl)]);
  for (const [rel, text] of Object.entries(options.files ?? {})) {
    await fs.mkdir(dirname(join(home, rel)), { recursive: true });
    await fs.writeFile(join(home, rel), text);
  }
  const source = options.source === undefined ? f.mirrorUrl : options.source;
  return {
    command: f.binary!,
    args: ["install", "--yes", ...(source === null ? [] : ["--source", source]), ...args],
    env: homeEnv(home, { SHELL: "/bin/bash", ...options.env }),
    cwd: options.cwd ?? home,
  };
}

/** The fixture binary's install into `home` (see prepareInstall), waited on until it exits; its result, asserted on by the caller. */
export async function runInstall(f: FixtureInfo, home: string, args: readonly string[] = [], options: InstallRunOptions = {}): Promise<RunResult> {
  const c = await prepareInstall(f, home, args, options);
  // No limit of its own: the file's outer limit is the only one (an install under load takes minutes).
  return runCommand(c.command, c.args, { env: c.env, cwd: c.cwd });
}

/** The fixture binary, `gentle-shell-setup <args>`, run in `home` as its user runs it (homeEnv with SHELL=/bin/bash, `extra` over it); waited on until it exits, asserted on by the caller. */
export function gentleShellSetup(f: FixtureInfo, home: string, args: string[], extra: NodeJS.ProcessEnv = {}): Promise<RunResult> {
  return runCommand(f.binary!, args, { env: homeEnv(home, { SHELL: "/bin/bash", ...extra }), cwd: home });
}

function result(root: string, home: string, output: string): Installed {
  const prefix = join(home, ".gentle-shell");
  return { root, home, prefix, gs: launcherIn(home), env: homeEnv(home, { SHELL: "/bin/bash" }), output };
}
