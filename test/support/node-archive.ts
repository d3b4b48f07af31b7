/**
 * A nodejs.org-shaped `node-v24.21.0-linux-x64.tar.gz` for the tests, built
 * from the verified Node 24.21.0 executable (build/toolchain.mjs) and the
 * verified npm@11.19.0 registry tarball, with the official archive's shape:
 *
 *   node-v24.21.0-linux-x64/
 *     bin/node, bin/npm, bin/npx, bin/corepack (the last three symlinks)
 *     lib/node_modules/npm/        the npm package's files
 *     lib/node_modules/corepack/   a tiny PLACEHOLDER package (not corepack)
 *     include/node/node_version.h  a placeholder header
 *     share/doc/node/, share/man/man1/node.1
 *     CHANGELOG.md, LICENSE, README.md  (short fixture texts)
 *
 * It is not the official archive (whose sha256 is the production pin); its
 * own sha256 and size become the fixture pin. Built deterministically and
 * cached in CACHE_DIR by the sha256 of its inputs, so the pin is stable.
 */
import { createHash, randomBytes } from "node:crypto";
import { createReadStream } from "node:fs";
import { copyFile, mkdir, mkdtemp, readFile, rename, rm, stat, symlink, writeFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import { pipeline } from "node:stream/promises";
import * as tar from "tar";
import { packDeterministic } from "./tarball";
import { toolchain } from "./toolchain";

export const NODE_VERSION = "24.21.0";
export const NPM_VERSION = "11.19.0";
/** Bump when the archive's shape changes, so cached archives are rebuilt. */
const FORMAT = 1;

export interface NodeArchive {
  file: string;
  /** Path in the source layout. */
  path: string;
  sha256: string;
  size: number;
}

export async function sha256File(file: string): Promise<string> {
  const hash = createHash("sha256");
  await pipeline(createReadStream(file), hash);
  return hash.digest("hex");
}

/** Build (or reuse) the fixture archive for linux-x64. */
export async function ensureNodeArchive(): Promise<NodeArchive> {
  const tc = await toolchain();
  const target = "linux-x64";
  const nodeBinary = await tc.ensureNodeBinary(target);
  const npmTarball = await tc.ensurePackageTarball("npm", NPM_VERSION);
  const key = createHash("sha256")
    .update(`format ${FORMAT}\n`)
    .update(`node ${await sha256File(nodeBinary)}\n`)
    .update(`npm ${await sha256File(npmTarball)}\n`)
    .digest("hex")
    .slice(0, 16);
  const name = `node-v${NODE_VERSION}-${target}`;
  const dir = join(tc.CACHE_DIR, "fixture-node-archive", key);
  const file = join(dir, `${name}.tar.gz`);
  const layoutPath = `node/v${NODE_VERSION}/${name}.tar.gz`;
  const cached = await readMeta(dir);
  if (cached) return { file, path: layoutPath, ...cached };

  const work = join(tc.CACHE_DIR, "fixture-node-archive", `.work-${process.pid}-${randomBytes(4).toString("hex")}`);
  try {
    const out = join(work, "out");
    await mkdir(out, { recursive: true });
    const meta = await buildNodeArchive(join(out, `${name}.tar.gz`), { nodeBinary, npmTarball });
    await writeFile(join(out, "meta.json"), JSON.stringify(meta) + "\n");
    try {
      await rename(out, dir);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code !== "EEXIST" && code !== "ENOTEMPTY") throw error;
    }
    const published = await readMeta(dir);
    if (!published) throw new Error(`fixture Node archive: could not publish ${dir}`);
    return { file, path: layoutPath, ...published };
  } finally {
    await rm(work, { recursive: true, force: true });
  }
}

/** Build the archive into `outFile` (no cache); returns its sha256 and size. */
export async function buildNodeArchive(outFile: string, inputs: { nodeBinary: string; npmTarball: string }): Promise<{ sha256: string; size: number }> {
  const name = `node-v${NODE_VERSION}-linux-x64`;
  const work = await mkdtemp(join(dirname(outFile), ".node-archive-"));
  try {
    const top = join(work, name);
    await mkdir(join(top, "bin"), { recursive: true });
    await copyFile(inputs.nodeBinary, join(top, "bin", "node"));
    const npmDir = join(top, "lib", "node_modules", "npm");
    await mkdir(npmDir, { recursive: true });
    await tar.x({ file: inputs.npmTarball, cwd: npmDir, strip: 1 });
    const corepack = join(top, "lib", "node_modules", "corepack");
    await mkdir(join(corepack, "dist"), { recursive: true });
    await writeFile(
      join(corepack, "package.json"),
      JSON.stringify(
        {
          name: "corepack",
          version: "0.0.0-fixture",
          description: "PLACEHOLDER in a test fixture archive, not corepack",
          bin: { corepack: "./dist/corepack.js" },
        },
        null,
        2,
      ) + "\n",
    );
    await writeFile(
      join(corepack, "dist", "corepack.js"),
      '#!/usr/bin/env node\nconsole.error("corepack is a placeholder in this gentle-shell-setup test fixture archive");\nprocess.exit(1);\n',
      { mode: 0o755 },
    );
    await archiveLink("../lib/node_modules/npm/bin/npm-cli.js", join(top, "bin", "npm"));
    await archiveLink("../lib/node_modules/npm/bin/npx-cli.js", join(top, "bin", "npx"));
    await archiveLink("../lib/node_modules/corepack/dist/corepack.js", join(top, "bin", "corepack"));
    await mkdir(join(top, "include", "node"), { recursive: true });
    const [major, minor, patch] = NODE_VERSION.split(".");
    await writeFile(
      join(top, "include", "node", "node_version.h"),
      `/* Placeholder header in a gentle-shell-setup test fixture archive. */\n#define NODE_MAJOR_VERSION ${major}\n#define NODE_MINOR_VERSION ${minor}\n#define NODE_PATCH_VERSION ${patch}\n`,
    );
    await mkdir(join(top, "share", "doc", "node"), { recursive: true });
    await writeFile(join(top, "share", "doc", "node", "FIXTURE.md"), "Documentation placeholder of a test fixture archive.\n");
    await mkdir(join(top, "share", "man", "man1"), { recursive: true });
    await writeFile(join(top, "share", "man", "man1", "node.1"), ".TH NODE 1\n.SH NAME\nnode \\- placeholder man page (test fixture)\n");
    const notice = `This is a TEST FIXTURE archive made by gentle-shell-setup's tests from the official Node.js ${NODE_VERSION} executable and npm ${NPM_VERSION}. It is not a Node.js release archive.\n`;
    await writeFile(join(top, "README.md"), `# Node.js ${NODE_VERSION} (test fixture)\n\n${notice}`);
    await writeFile(join(top, "CHANGELOG.md"), `# Changelog (test fixture)\n\n${notice}`);
    await writeFile(
      join(top, "LICENSE"),
      `${notice}\nNode.js is licensed under the MIT license; npm under the Artistic License 2.0. See https://github.com/nodejs/node/blob/main/LICENSE.\n`,
    );

    await packDeterministic(work, name, outFile);
    return { sha256: await sha256File(outFile), size: (await stat(outFile)).size };
  } finally {
    await rm(work, { recursive: true, force: true });
  }
}

/**
 * A link of the archive. Windows (the end-to-end lane, which installs from
 * nodejs.org's own zip and never unpacks this archive) may refuse to make one
 * without the privilege: there it is a small text file naming its target.
 */
async function archiveLink(target: string, path: string): Promise<void> {
  try {
    await symlink(target, path);
  } catch (error) {
    if (process.platform !== "win32" || (error as NodeJS.ErrnoException).code !== "EPERM") throw error;
    await writeFile(path, `link to ${target} (this Windows refused to make the link)\n`);
  }
}

async function readMeta(dir: string): Promise<{ sha256: string; size: number } | null> {
  try {
    const meta = JSON.parse(await readFile(join(dir, "meta.json"), "utf8")) as { sha256: string; size: number };
    const st = await stat(join(dir, `node-v${NODE_VERSION}-linux-x64.tar.gz`));
    return st.size === meta.size ? meta : null;
  } catch {
    return null;
  }
}
