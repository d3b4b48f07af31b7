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
import { promises as fs } from "node:fs";
import { join } from "pathe";
import { expect } from "vitest";
import type { FixtureInfo } from "./fixtures";
import { homeEnv } from "./fixtures";
import { runCommand } from "./proc";
import { scratchDir } from "./scratch";
import { sharedInstall } from "./shared-install";

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
  const installArgs = [...(options.release ? ["--release", options.release] : []), ...(options.extra ?? [])];
  if (!options.fresh && !options.home && !options.registry && !options.source) {
    const copy = await sharedInstall(f, { args: installArgs, files: options.files });
    const prefix = join(copy.home, ".gentle-shell");
    const env = homeEnv(copy.home, { SHELL: "/bin/bash" });
    return { root: copy.root, home: copy.home, prefix, gs: join(prefix, "bin", "gentle-shell"), env, output: copy.output };
  }
  const root = scratchDir("gss-installed-");
  const home = options.home ? await options.home(root) : join(root, "home");
  await fs.mkdir(home, { recursive: true });
  await fs.writeFile(join(home, ".npmrc"), `registry=${options.registry ?? f.registryUrl}\n`);
  for (const [rel, text] of Object.entries(options.files ?? {})) await fs.writeFile(join(home, rel), text);
  const env = homeEnv(home, { SHELL: "/bin/bash" });
  const args = ["install", "--yes", "--source", options.source ?? f.mirrorUrl, ...installArgs];
  // Waited on until it exits: the file's outer limit is the only one (an install under load takes minutes).
  const r = await runCommand(f.binary!, args, { env, cwd: home });
  expect(r.code, r.stdout + r.stderr).toBe(0);
  const prefix = join(home, ".gentle-shell");
  return { root, home, prefix, gs: join(prefix, "bin", "gentle-shell"), env, output: r.stdout + r.stderr };
}
