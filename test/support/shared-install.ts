/**
 * Expensive trees made once per run and copied into each test's own scratch
 * folder (`sharedTree`): the fixture binary's install, one per distinct
 * install command (./installed.ts), and any other tree a file builds the
 * same way for every test (a global npm install of gentle-pi, say).
 *
 * The first test file that asks for a tree builds it for real; every other
 * file, in any worker, waits for that one (a lock folder in the run's
 * fixtures folder) and then copies it. A tree holds its own absolute path
 * (the launcher, pnpm's bin shims and state, the PATH receipt, the agent's
 * settings), so a copy is relocated and checked:
 *
 *   - the copy's root has exactly the template root's length (both are
 *     `<tmp>/gss-installed-XXXXXX`), so the path is replaced byte for byte
 *     in every file that holds it, text or binary, and no offset moves;
 *   - which files and links hold it is found once, by reading every file of
 *     the template;
 *   - each copy is checked afterwards: none of those files or links still
 *     names the template.
 *
 * A tree may name folders whose files nothing writes in place (`linked`:
 * an install's runtimes, pnpm's store and the node_modules linked from it):
 * their files are hard links to the template's, not copies, which saves most
 * of a copy's cost (a copy of an install is about 350 MB). A file there that
 * is relocated is replaced by a new file, never written through. A test that
 * changes such a file replaces it too (rm, or a rename over it), as it must
 * already for pnpm's files, which are hard links into its store.
 *
 * A test that exercises the install itself (its output as it happens, a kill
 * during it, an odd HOME) still runs its own install.
 */
import { createHash } from "node:crypto";
import { promises as fs, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import type { FixtureInfo } from "./fixtures";
import { type RunResult, runCommand } from "./proc";
import { scratchDir } from "./scratch";
import { SHARED_ROOT_PREFIX, sharedInstallsFolder } from "./shared-install-root";

interface Template {
  root: string;
  output: string;
  /** Files under the root that hold the root's path (relative to it). */
  files: string[];
  /** Links under the root whose target holds it. */
  links: string[];
  /** Folders under the root whose files each copy hard-links instead of copying (relative, none inside another). */
  linked: string[];
  /** The digest of the linked files' list (path, size, mtime, mode) as the build left them; their list is in `<name>.linked`. */
  linkedDigest?: string;
  /** Set when the build failed: every test that wanted the tree fails with its output. */
  error?: string;
}

export interface SharedCopy {
  /** This test's copy: a scratch folder of its file, removed when the file ends. */
  root: string;
  /** What the template's build printed, with its root replaced by this copy's. */
  output: string;
}

export interface SharedTreeOptions {
  /**
   * Folders under the root (relative; a `*` stands for any one name) whose files nothing writes in place:
   * each copy hard-links them to the template's instead of copying them.
   */
  linked?: string[];
}

/**
 * A copy of the tree `build` makes in an empty root, built once per run for
 * each `name`. `build` returns the result of the command that made it; when
 * that exited non-zero (or `build` threw), every copy fails with its output.
 */
export async function sharedTree(
  f: FixtureInfo,
  name: string,
  build: (root: string) => Promise<RunResult>,
  options: SharedTreeOptions = {},
): Promise<SharedCopy> {
  const template = await templateFor(f, name, build, options.linked ?? []);
  if (template.linked.length > 0) await checkLinkedUnchanged(f, name, template);
  const root = scratchDir(SHARED_ROOT_PREFIX);
  if (Buffer.byteLength(root) !== Buffer.byteLength(template.root)) {
    throw new Error(`shared tree: ${root} and ${template.root} differ in length; a copy cannot be relocated in place`);
  }
  await copyTree(template.root, root, "", template.linked);
  const from = Buffer.from(template.root);
  const to = Buffer.from(root);
  for (const rel of template.files) {
    const file = join(root, rel);
    const bytes = await fs.readFile(file);
    if (replaceInPlace(bytes, from, to) === 0) continue; // a hard link of a file already relocated
    if (template.linked.some((dir) => rel.startsWith(`${dir}/`))) {
      // The template's own file: a new file takes its place in this copy, with its mode.
      const { mode } = await fs.stat(file);
      await fs.writeFile(`${file}.relocated`, bytes, { mode: mode & 0o7777 });
      await fs.chmod(`${file}.relocated`, mode & 0o7777);
      await fs.rename(`${file}.relocated`, file);
    } else await fs.writeFile(file, bytes);
  }
  for (const rel of template.links) {
    const link = join(root, rel);
    const target = await fs.readlink(link);
    await fs.unlink(link);
    await fs.symlink(target.split(template.root).join(root), link);
  }
  // The check: nothing of the copy still names the template.
  for (const rel of template.files) {
    if ((await fs.readFile(join(root, rel))).includes(from)) throw new Error(`shared tree: ${rel} still names ${template.root}`);
  }
  for (const rel of template.links) {
    if ((await fs.readlink(join(root, rel))).includes(template.root)) throw new Error(`shared tree: link ${rel} still names ${template.root}`);
  }
  return { root, output: template.output.split(template.root).join(root) };
}

/**
 * Copy `from/rel` into `to/rel` as cp -a would (modes, owners, times, and the hard links among the files of one
 * cp), but with the files of the `linked` folders hard-linked to the template's (cp -al). A folder on the way to
 * a linked one is made here and given its template's mode, owner and times once filled.
 */
async function copyTree(from: string, to: string, rel: string, linked: readonly string[]): Promise<void> {
  const copied: string[] = [];
  const hardLinked: string[] = [];
  const entries = await fs.readdir(join(from, rel), { withFileTypes: true });
  for (const entry of entries) {
    const sub = rel ? `${rel}/${entry.name}` : entry.name;
    if (linked.includes(sub)) hardLinked.push(join(from, sub));
    else if (entry.isDirectory() && linked.some((dir) => dir.startsWith(`${sub}/`))) {
      await fs.mkdir(join(to, sub));
      await copyTree(from, to, sub, linked);
    } else copied.push(join(from, sub));
  }
  // One cp for all the copied entries of a folder, so the hard links among them stay hard links.
  for (const [flags, paths] of [
    ["-a", copied],
    ["-al", hardLinked],
  ] as const) {
    if (paths.length === 0) continue;
    const cp = await runCommand("cp", [flags, "--", ...paths, join(to, rel)]);
    if (cp.code !== 0) throw new Error(`shared tree: cp ${flags} failed: ${cp.stderr}`);
  }
  const stat = await fs.lstat(join(from, rel));
  await fs.chown(join(to, rel), stat.uid, stat.gid);
  await fs.chmod(join(to, rel), stat.mode & 0o7777);
  await fs.utimes(join(to, rel), stat.atime, stat.mtime);
}

/** Each file of the linked folders under `root`, one line each: its path, size, mtime and mode, sorted. */
async function linkedList(root: string, linked: readonly string[]): Promise<string> {
  const r = await runCommand("find", [...linked, "-type", "f", "-printf", "%p\t%s\t%T@\t%m\n"], { cwd: root });
  if (r.code !== 0) throw new Error(`shared tree: find failed: ${r.stderr}`);
  return r.stdout.split("\n").filter(Boolean).sort().join("\n");
}

const digest = (text: string) => createHash("sha256").update(text).digest("hex");

/**
 * The guard of the linked files: a test that wrote through one of them (or changed its mode) changed the
 * template and every copy. Said here, naming the file, instead of as a strange failure of some later test.
 */
async function checkLinkedUnchanged(f: FixtureInfo, name: string, template: Template): Promise<void> {
  const now = await linkedList(template.root, template.linked);
  if (digest(now) === template.linkedDigest) return;
  const then = new Set((await fs.readFile(join(sharedInstallsFolder(f.runDir), `${name}.linked`), "utf8")).split("\n"));
  const changed = now
    .split("\n")
    .filter((line) => !then.has(line))
    .map((line) => line.split("\t")[0]);
  throw new Error(
    `shared tree ${name}: ${changed.slice(0, 5).join(", ") || "a file"} of the template (${template.root}) changed since it was made: a test wrote through a hard link of a copy (or changed its mode); replace such a file (rm, or a rename over it), never write through it`,
  );
}

/** The folders under `root` that `patterns` name (a `*` segment: any one name), that exist there. */
async function expandLinked(root: string, patterns: readonly string[]): Promise<string[]> {
  const found: string[] = [];
  for (const pattern of patterns) {
    let paths = [""];
    for (const part of pattern.split("/")) {
      const next: string[] = [];
      for (const path of paths) {
        if (part !== "*") next.push(path ? `${path}/${part}` : part);
        else for (const name of await fs.readdir(join(root, path)).catch(() => [] as string[])) next.push(path ? `${path}/${name}` : name);
      }
      paths = next;
    }
    for (const path of paths) if ((await fs.lstat(join(root, path)).catch(() => null))?.isDirectory()) found.push(path);
  }
  return found;
}

/** Replace every occurrence of `from` in `bytes` by `to` (same length); returns how many. */
function replaceInPlace(bytes: Buffer, from: Buffer, to: Buffer): number {
  let count = 0;
  for (let at = bytes.indexOf(from); at !== -1; at = bytes.indexOf(from, at + from.length)) {
    to.copy(bytes, at);
    count++;
  }
  return count;
}

async function templateFor(f: FixtureInfo, name: string, build: (root: string) => Promise<RunResult>, linked: readonly string[]): Promise<Template> {
  const dir = sharedInstallsFolder(f.runDir);
  await fs.mkdir(dir, { recursive: true });
  const record = join(dir, `${name}.json`);
  const lock = join(dir, `${name}.lock`);
  for (;;) {
    const done = await fs.readFile(record, "utf8").catch(() => null);
    if (done !== null) {
      const template = JSON.parse(done) as Template;
      if (template.error) throw new Error(`the shared tree ${name} could not be made:\n${template.error}`);
      return template;
    }
    try {
      await fs.mkdir(lock);
    } catch {
      // Another file is building it: wait for its record, or take over from a worker that died.
      const holder = Number(await fs.readFile(join(lock, "pid"), "utf8").catch(() => "0"));
      if (holder && !alive(holder)) await fs.rm(lock, { recursive: true, force: true });
      await new Promise((r) => setTimeout(r, 250));
      continue;
    }
    await fs.writeFile(join(lock, "pid"), String(process.pid));
    const template = await makeTemplate(dir, name, build, linked);
    await fs.writeFile(`${record}.tmp`, JSON.stringify(template));
    await fs.rename(`${record}.tmp`, record);
    await fs.rm(lock, { recursive: true, force: true });
  }
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

async function makeTemplate(dir: string, name: string, build: (root: string) => Promise<RunResult>, linked: readonly string[]): Promise<Template> {
  // Not a scratch folder of this file: other files copy it after this one ends; the global teardown removes it.
  const root = mkdtempSync(join(tmpdir(), SHARED_ROOT_PREFIX));
  await fs.writeFile(join(dir, `${relative(tmpdir(), root)}.root`), root);
  let output = "";
  let error: string | undefined;
  try {
    const r = await build(root);
    output = r.stdout + r.stderr;
    if (r.code !== 0) error = `exited ${r.code ?? r.signal}\n${output}`;
  } catch (thrown) {
    error = (thrown as Error).stack ?? String(thrown);
  }
  if (error) return { root, output, files: [], links: [], linked: [], error };
  const folders = await expandLinked(root, linked);
  if (folders.length === 0) return { root, output, ...(await pathsHolding(root, root)), linked: folders };
  const list = await linkedList(root, folders);
  await fs.writeFile(join(dir, `${name}.linked`), list);
  return { root, output, ...(await pathsHolding(root, root)), linked: folders, linkedDigest: digest(list) };
}

/** Every file under `root` whose bytes hold `text`, and every link whose target does (paths relative to `root`). */
export async function pathsHolding(root: string, text: string): Promise<{ files: string[]; links: string[] }> {
  const needle = Buffer.from(text);
  const files: string[] = [];
  const links: string[] = [];
  const walk = async (dir: string): Promise<void> => {
    for (const entry of await fs.readdir(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) await walk(path);
      else if (entry.isSymbolicLink()) {
        if ((await fs.readlink(path)).includes(text)) links.push(relative(root, path));
      } else if (entry.isFile() && (await fs.readFile(path)).includes(needle)) files.push(relative(root, path));
    }
  };
  await walk(root);
  return { files, links };
}
