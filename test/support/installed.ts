/**
 * A real install by the fixture binary into a scratch HOME, for the
 * end-to-end tests that then break its layout on purpose:
 *
 *   const i = await installed(f, { release: "4.0.0" });   // i.home, i.prefix, i.gs (the launcher), i.env
 *
 * An install into an ordinary home (the fixture registry, the fixture
 * mirror) is made once per run for each set of arguments and copied here
 * (./shared-install.ts); `fresh: true`, another registry or source, or a
 * home of the test's own make install anew.
 */
import { createHash } from "node:crypto";
import { registryLine, writeNpmrc } from "./npmrc";
import { promises as fs } from "node:fs";
import { join } from "pathe";
import { expect } from "vitest";
import type { FixtureInfo } from "./fixtures";
import { homeEnv } from "./fixtures";
import { type RunResult, runCommand } from "./proc";
import { scratchDir } from "./scratch";
import { sharedTree } from "./shared-install";

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
}

export async function installed(f: FixtureInfo, options: InstallOptions = {}): Promise<Installed> {
  const args = [...(options.release ? ["--release", options.release] : []), ...(options.extra ?? [])];
  if (!options.fresh && !options.home && !options.registry && !options.source) {
    const key = createHash("sha256")
      .update(JSON.stringify([args, Object.entries(options.files ?? {}).sort()]))
      .digest("hex")
      .slice(0, 16);
    const copy = await sharedTree(f, `install-${key}`, (root) => installInto(f, join(root, "home"), args, options));
    return result(copy.root, join(copy.root, "home"), copy.output);
  }
  const root = scratchDir("gss-installed-");
  const home = options.home ? await options.home(root) : join(root, "home");
  const r = await installInto(f, home, args, options);
  expect(r.code, r.stdout + r.stderr).toBe(0);
  return result(root, home, r.stdout + r.stderr);
}

/** The fixture binary's `install --yes` into `home`: its .npmrc and `files` first, then the install, waited on until it exits. */
async function installInto(f: FixtureInfo, home: string, args: string[], options: InstallOptions): Promise<RunResult> {
  await fs.mkdir(home, { recursive: true });
  await writeNpmrc(home, [registryLine(options.registry ?? f.registryUrl)]);
  for (const [rel, text] of Object.entries(options.files ?? {})) await fs.writeFile(join(home, rel), text);
  // No limit of its own: the file's outer limit is the only one (an install under load takes minutes).
  return runCommand(f.binary!, ["install", "--yes", "--source", options.source ?? f.mirrorUrl, ...args], {
    env: homeEnv(home, { SHELL: "/bin/bash" }),
    cwd: home,
  });
}

function result(root: string, home: string, output: string): Installed {
  const prefix = join(home, ".gentle-shell");
  return { root, home, prefix, gs: join(prefix, "bin", "gentle-shell"), env: homeEnv(home, { SHELL: "/bin/bash" }), output };
}
