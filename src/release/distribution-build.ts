/**
 * buildDistribution (spec: "Release distribution assets", Resolution): writes
 * distributionFiles() into a fresh folder under the prefix's tmp/, runs our
 * pinned pnpm with `install --lockfile-only` in the environment installVersion
 * uses, and reads back only pnpm-lock.yaml.
 */
import { promises as fs } from "node:fs";
import { stagingPath } from "../io/staging";
import { join } from "../core/native-path";
import type { Layout } from "../core/layout";
import type { Pins } from "../pins/types";
import { distributionAsset, distributionFiles, SHELL_PACKAGE } from "../core/release-project";
import { assertExactVersion } from "../core/versions";
import { pnpmEnvironment, type Env } from "../core/environment";
import { outputTail, run } from "../io/process";
import { readTextOrNull } from "../io/files";
import { ensureOwnDir } from "../io/own-dir";
import { rm } from "../io/locked-retry";

export interface BuildDistributionOptions {
  shell: string;
  pi: string;
  /** Our Node executable. */
  node: string;
  /** pnpm's package/bin/pnpm.mjs. */
  pnpmEntry: string;
  layout: Layout;
  pins: Pins;
  /** The environment pnpm starts from (the Host's, or a test's). */
  env: Env;
  /** "Just published" retries: 10 attempts, 30 s apart, unless a test says otherwise. */
  attempts?: number;
  retryDelayMs?: number;
}

export async function buildDistribution(options: BuildDistributionOptions): Promise<{ json: string; lockfile: string }> {
  const manifest = {
    shell: assertExactVersion("gentle-pi version", options.shell),
    pi: assertExactVersion("Pi version", options.pi),
  };
  const files = distributionFiles(manifest);
  const { layout } = options;
  for (const dir of [layout.tmp, layout.pnpm.store, layout.pnpm.cache, layout.pnpm.state, layout.pnpm.config]) {
    await ensureOwnDir(layout.prefix, dir, 0o700);
  }
  const npmrc = (await readTextOrNull(layout.pnpm.npmrc)) ?? "";
  const env = pnpmEnvironment(layout, { env: options.env, npmrc });
  const attempts = options.attempts ?? 10;
  const delay = options.retryDelayMs ?? 30_000;
  for (let attempt = 1; ; attempt++) {
    const dir = stagingPath(layout.tmp, "distribution");
    await fs.mkdir(dir, { mode: 0o700 });
    try {
      await fs.writeFile(join(dir, "package.json"), files["package.json"]);
      await fs.writeFile(join(dir, "pnpm-workspace.yaml"), files["pnpm-workspace.yaml"]);
      const result = await run(options.node, [options.pnpmEntry, "install", "--lockfile-only"], { cwd: dir, env });
      if (result.code === 0) {
        const lockfile = await fs.readFile(join(dir, "pnpm-lock.yaml"), "utf8");
        const json = distributionAsset(manifest, lockfile, {
          node: options.pins.node.version,
          pnpm: options.pins.pnpm.version,
        });
        return { json, lockfile };
      }
      const justPublished = result.stdout.includes("ERR_PNPM_NO_MATCHING_VERSION") && result.stdout.includes(`${SHELL_PACKAGE}@${manifest.shell}`);
      if (!justPublished) {
        throw new Error(`pnpm could not resolve ${SHELL_PACKAGE}@${manifest.shell} with Pi ${manifest.pi}:\n${outputTail(result)}`);
      }
      if (attempt >= attempts) {
        throw new Error(`${SHELL_PACKAGE}@${manifest.shell} is not on the registry after ${attempts} attempts`);
      }
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
    await new Promise((r) => setTimeout(r, delay));
  }
}
