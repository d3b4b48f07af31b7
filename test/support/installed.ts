/**
 * A real install by the fixture binary into a scratch HOME, for the
 * end-to-end tests that then break its layout on purpose:
 *
 *   const i = await installed(f, { release: "4.0.0" });   // i.home, i.prefix, i.gs (the launcher), i.env
 */
import { promises as fs } from "node:fs";
import { join } from "pathe";
import { expect } from "vitest";
import type { FixtureInfo } from "./fixtures";
import { homeEnv } from "./fixtures";
import { runCommand } from "./proc";
import { scratchDir } from "./scratch";

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
}

export async function installed(f: FixtureInfo, options: InstallOptions = {}): Promise<Installed> {
  const root = scratchDir("gss-installed-");
  const home = options.home ? await options.home(root) : join(root, "home");
  await fs.mkdir(home, { recursive: true });
  await fs.writeFile(join(home, ".npmrc"), `registry=${options.registry ?? f.registryUrl}\n`);
  const env = homeEnv(home, { SHELL: "/bin/bash" });
  const args = [
    "install",
    "--yes",
    "--source",
    options.source ?? f.mirrorUrl,
    ...(options.release ? ["--release", options.release] : []),
    ...(options.extra ?? []),
  ];
  const r = await runCommand(f.binary!, args, { env, cwd: home, timeoutMs: 170_000 });
  expect(r.code, r.stdout + r.stderr).toBe(0);
  const prefix = join(home, ".gentle-shell");
  return { root, home, prefix, gs: join(prefix, "bin", "gentle-shell"), env, output: r.stdout + r.stderr };
}
