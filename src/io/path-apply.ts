/**
 * The PATH entry's side effects (spec: "PATH"): gathering the facts
 * pathEntryPlan decides on, applying the plan, the receipt in
 * `<prefix>/path-entry.json`, taking the entry back, and the Windows user
 * Path through an adapter. The decisions and the reasons for them are in
 * `src/core/path-entry.ts`.
 *
 * For the installer:
 *
 *   bundledPathStep(layout, { env, platform?, noModifyPath?, fs?, registry?, user? })
 *     -> Promise<PathStepOutcome>
 *
 * gathers the facts, plans, applies, persists the receipt (taking the entry
 * back when that fails) and returns `{ status, plan, receipt?, file?, line?,
 * detail?, nextStep }`. `status` is "applied", "already", "manual" (a file we
 * must not write; `line` is what to add), "skipped" (noModifyPath, which the
 * CLI sets from --no-modify-path or GENTLE_SHELL_NO_MODIFY_PATH=1) or
 * "failed" (`detail` holds the error with the home as ~). `nextStep` is one
 * sentence: what the user does to get `gentle-shell` in the current terminal.
 *
 * Safety of writes (spec PATH, "Safe appends"): a profile is opened with
 * O_NOFOLLOW (and O_NONBLOCK, so a FIFO put there never blocks us), must be a
 * regular file once open, and its folders under home are checked again right
 * before. Removal edits the file in place through the same kind of
 * descriptor, so its inode, mode and owner stay, and truncates when our line
 * was the end of it.
 */
import * as nodeFs from "node:fs";
import { dirname, join, relative, isAbsolute } from "pathe";
import type { Layout, Platform } from "../core/layout";
import { tildify, tildifyText } from "../core/layout";
import { runWindowsPowerShell, type PowerShellResult, type PowerShellRunner } from "./powershell";

export { tildifyText };
import {
  addLineSentence,
  checkReceipt,
  holdsLine,
  localBinLink,
  markedLines,
  modeAllowsWrite,
  pathEntries,
  pathEntryPlan,
  profileFiles,
  profileTarget,
  receiptJson,
  reloadCommand,
  userPathAppend,
  userPathEntry,
  userPathHolds,
  userPathRemove,
  USER_PATH_KEY,
  USER_PATH_NAME,
  type Env,
  type FileFacts,
  type PathEntryPlan,
  type PathFacts,
  type PathReceipt,
  type ReceiptCheck,
  type UserIds,
  type UserPathValue,
} from "../core/path-entry";

export type PathFs = Pick<
  typeof nodeFs,
  | "lstatSync"
  | "statSync"
  | "readFileSync"
  | "readlinkSync"
  | "openSync"
  | "closeSync"
  | "fstatSync"
  | "readSync"
  | "writeSync"
  | "ftruncateSync"
  | "fsyncSync"
  | "fchmodSync"
  | "renameSync"
  | "unlinkSync"
  | "mkdirSync"
  | "symlinkSync"
  | "accessSync"
  | "constants"
>;

/** The Windows user Path (HKCU\Environment, value Path). */
export interface RegistryAdapter {
  /** The raw value, never expanded, with its type; null when there is no such value. */
  readUserPath(): Promise<UserPathValue | null>;
  /** Writes the value with the type given (REG_EXPAND_SZ stays REG_EXPAND_SZ). */
  writeUserPath(value: UserPathValue): Promise<void>;
  /** WM_SETTINGCHANGE "Environment", so Explorer gives new terminals the new Path. */
  broadcastEnvironmentChange(): Promise<void>;
}

export interface PathIoOptions {
  fs?: PathFs;
  registry?: RegistryAdapter;
  /** Whose writes count (defaults to this process). */
  user?: UserIds;
}

const O = nodeFs.constants;
const NOFOLLOW = O.O_NOFOLLOW ?? 0;
const NONBLOCK = O.O_NONBLOCK ?? 0;
/** A startup file larger than this is not read (and so never edited). */
const MAX_PROFILE = 4 * 1024 * 1024;

function currentUser(): UserIds {
  const uid = typeof process.getuid === "function" ? process.getuid() : 0;
  const gids = typeof process.getgroups === "function" ? process.getgroups() : [];
  const gid = typeof process.getgid === "function" ? process.getgid() : 0;
  return { uid, gids: gids.includes(gid) ? gids : [...gids, gid] };
}

function code(e: unknown): string | undefined {
  return (e as NodeJS.ErrnoException | null)?.code;
}

// ---------------------------------------------------------------------------
// Facts

/**
 * The folders whose realness matters for `path`: those strictly below home
 * when the file is under home; otherwise those below the top-level folder
 * (so system links such as macOS /tmp -> /private/tmp do not count).
 */
function foldersToCheck(path: string, home: string): string[] {
  const dir = dirname(path);
  const rel = relative(home, dir);
  const underHome = rel === "" || (!rel.startsWith("..") && !isAbsolute(rel));
  const base = underHome ? home : "/" + (dir.split("/")[1] ?? "");
  const parts = relative(base, dir).split("/").filter(Boolean);
  const out: string[] = [];
  let cur = base;
  for (const p of parts) {
    cur = join(cur, p);
    out.push(cur);
  }
  return out;
}

interface FolderWalk {
  /** First folder that is a link or not a folder. */
  linked: string | null;
  /** Deepest folder that exists (home or the top when none below does). */
  deepest: string;
  /** Folders that do not exist yet, top first. */
  missing: string[];
}

function walkFolders(path: string, home: string, fs: PathFs): FolderWalk {
  const folders = foldersToCheck(path, home);
  let deepest = folders.length ? dirname(folders[0]!) : dirname(path);
  for (let i = 0; i < folders.length; i++) {
    const d = folders[i]!;
    let st: nodeFs.Stats;
    try {
      st = fs.lstatSync(d);
    } catch (e) {
      if (code(e) === "ENOENT") return { linked: null, deepest, missing: folders.slice(i) };
      throw e;
    }
    if (!st.isDirectory()) return { linked: d, deepest, missing: [] };
    deepest = d;
  }
  return { linked: null, deepest, missing: [] };
}

function canWrite(path: string, st: nodeFs.Stats, fs: PathFs, user: UserIds): boolean {
  if (!modeAllowsWrite(st, user)) return false;
  try {
    fs.accessSync(path, fs.constants.W_OK);
    return true;
  } catch {
    return false;
  }
}

/** lstat, a read and the folders above: what pathEntryPlan needs about one path. */
export function probeFile(path: string, home: string, options: PathIoOptions = {}): FileFacts {
  const fs = options.fs ?? nodeFs;
  const user = options.user ?? currentUser();
  const walk = walkFolders(path, home, fs);
  // Read through links, but only a regular file: a link to a FIFO or to
  // /dev/zero must not hang or flood the installer.
  const read = (): string | null => {
    let fd: number;
    try {
      fd = fs.openSync(path, O.O_RDONLY | NONBLOCK);
    } catch {
      return null;
    }
    try {
      const st = fs.fstatSync(fd);
      if (!st.isFile() || st.size > MAX_PROFILE) return null;
      return readAll(fs, fd).toString("utf8");
    } catch {
      return null;
    } finally {
      fs.closeSync(fd);
    }
  };
  if (walk.linked) {
    // Still read it: a file that already holds the line needs no plan at all.
    let node: FileFacts["node"] = "absent";
    try {
      const st = fs.lstatSync(path);
      node = st.isSymbolicLink() ? "link" : st.isFile() ? "file" : "other";
    } catch {
      /* absent, or a folder above is not a folder */
    }
    return { path, node, linkedFolder: walk.linked, writable: false, content: node === "other" ? null : read() };
  }
  let st: nodeFs.Stats;
  try {
    st = fs.lstatSync(path);
  } catch (e) {
    if (code(e) !== "ENOENT") throw e;
    let writable = false;
    try {
      writable = canWrite(walk.deepest, fs.statSync(walk.deepest), fs, user);
    } catch {
      writable = false;
    }
    return { path, node: "absent", linkedFolder: null, writable, content: null };
  }
  if (st.isSymbolicLink()) {
    let linkTarget: string | undefined;
    try {
      linkTarget = fs.readlinkSync(path);
    } catch {
      linkTarget = undefined;
    }
    return { path, node: "link", linkedFolder: null, writable: false, content: read(), linkTarget };
  }
  if (!st.isFile()) return { path, node: "other", linkedFolder: null, writable: false, content: null };
  return { path, node: "file", linkedFolder: null, writable: canWrite(path, st, fs, user), content: read() };
}

/** Everything pathEntryPlan decides on, for this layout and environment. */
export async function collectPathFacts(layout: Layout, options: PathIoOptions & { env: Env; platform?: Platform }): Promise<PathFacts> {
  const platform = options.platform ?? layout.platform;
  const base = { platform, home: layout.home, env: options.env, bin: layout.bin, launcher: layout.launcher };
  if (platform === "win32") {
    const registry = options.registry ?? windowsRegistry();
    return { ...base, files: {}, userPath: await registry.readUserPath() };
  }
  const files: Record<string, FileFacts> = {};
  for (const f of profileFiles(layout.home, options.env, platform)) files[f.path] = probeFile(f.path, layout.home, options);
  const link = localBinLink(layout.home);
  files[link] = probeFile(link, layout.home, options);
  if (files[link]!.node === "absent") {
    // The link goes into an existing ~/.local/bin only (it is on PATH).
    const fs = options.fs ?? nodeFs;
    try {
      if (!fs.lstatSync(dirname(link)).isDirectory()) files[link]!.writable = false;
    } catch {
      files[link]!.writable = false;
    }
  }
  return { ...base, files };
}

// ---------------------------------------------------------------------------
// Apply

function readAll(fs: PathFs, fd: number): Buffer {
  const size = fs.fstatSync(fd).size;
  const buf = Buffer.alloc(size);
  let off = 0;
  while (off < size) {
    const n = fs.readSync(fd, buf, off, size - off, off);
    if (n === 0) break;
    off += n;
  }
  return buf.subarray(0, off);
}

function writeAll(fs: PathFs, fd: number, data: Buffer, position?: number): void {
  let off = 0;
  while (off < data.length) {
    off += fs.writeSync(fd, data, off, data.length - off, position === undefined ? null : position + off);
  }
}

function assertRealFolders(path: string, home: string, fs: PathFs): FolderWalk {
  const walk = walkFolders(path, home, fs);
  if (walk.linked) throw new Error(`${walk.linked} is a link or not a folder; ${path} was not changed`);
  return walk;
}

function appendLine(plan: Extract<PathEntryPlan, { kind: "line" }>, home: string, fs: PathFs): PathReceipt {
  const walk = assertRealFolders(plan.file, home, fs);
  const receipt = (applied: boolean, create: boolean, separator: "" | "\n"): PathReceipt => ({
    schema: 1,
    kind: "profile",
    applied,
    path: plan.file,
    line: plan.line,
    create,
    separator,
  });
  if (plan.create) {
    for (const d of walk.missing) {
      try {
        fs.mkdirSync(d);
      } catch (e) {
        if (code(e) !== "EEXIST") throw e;
      }
      if (!fs.lstatSync(d).isDirectory()) throw new Error(`${d} is not a folder; ${plan.file} was not created`);
    }
    let fd: number;
    try {
      fd = fs.openSync(plan.file, O.O_WRONLY | O.O_CREAT | O.O_EXCL | NOFOLLOW, 0o644);
    } catch (e) {
      if (code(e) !== "EEXIST") throw e;
      // Someone created it since planning: append to it like any other file.
      return appendLine({ ...plan, create: false }, home, fs);
    }
    try {
      writeAll(fs, fd, Buffer.from(plan.line + "\n"));
      fs.fsyncSync(fd);
    } finally {
      fs.closeSync(fd);
    }
    return receipt(true, true, "");
  }
  let fd: number;
  try {
    fd = fs.openSync(plan.file, O.O_RDWR | O.O_APPEND | NOFOLLOW | NONBLOCK);
  } catch (e) {
    if (code(e) === "ELOOP" || code(e) === "EMLINK") throw new Error(`${plan.file} turned into a link after planning; it was not changed`);
    throw e;
  }
  try {
    if (!fs.fstatSync(fd).isFile()) throw new Error(`${plan.file} is not a regular file; it was not changed`);
    const before = readAll(fs, fd);
    if (holdsLine(before.toString("utf8"), plan.line)) return receipt(false, false, "");
    const separator = before.length > 0 && before[before.length - 1] !== 0x0a ? "\n" : "";
    writeAll(fs, fd, Buffer.from(separator + plan.line + "\n"));
    fs.fsyncSync(fd);
    return receipt(true, false, separator);
  } finally {
    fs.closeSync(fd);
  }
}

/**
 * spec PATH: applies only the planned change and returns its receipt. A
 * "none" plan gives a receipt with applied: false (never reverted). Manual
 * and impossible plans have nothing to apply and throw.
 */
export async function applyPathEntry(plan: PathEntryPlan, options: PathIoOptions & { home: string }): Promise<PathReceipt> {
  const fs = options.fs ?? nodeFs;
  switch (plan.kind) {
    case "none": {
      const e = plan.existing;
      if (e.kind === "link") return { schema: 1, kind: "link", applied: false, path: e.path, target: e.target };
      if (e.kind === "line") return { schema: 1, kind: "profile", applied: false, path: e.file, line: e.line, create: false, separator: "" };
      return { schema: 1, kind: "registry", applied: false, key: e.key, name: e.name, entry: e.entry };
    }
    case "link": {
      const dir = dirname(plan.path);
      assertRealFolders(plan.path, options.home, fs);
      if (!fs.lstatSync(dir).isDirectory()) throw new Error(`${dir} is not a folder`);
      fs.symlinkSync(plan.target, plan.path);
      return { schema: 1, kind: "link", applied: true, path: plan.path, target: plan.target };
    }
    case "line":
      return appendLine(plan, options.home, fs);
    case "registry": {
      const registry = options.registry ?? windowsRegistry();
      const current = await registry.readUserPath();
      const receipt = { schema: 1 as const, kind: "registry" as const, key: plan.key, name: plan.name, entry: plan.entry };
      if (current && userPathHolds(current.value, plan.entry)) return { ...receipt, applied: false };
      await registry.writeUserPath({ value: userPathAppend(current?.value ?? "", plan.entry), type: current?.type ?? "REG_EXPAND_SZ" });
      await registry.broadcastEnvironmentChange();
      return { ...receipt, applied: true };
    }
    case "manual":
      throw new Error(`nothing to apply: ${plan.file} must be edited by hand`);
    case "impossible":
      throw new Error(`nothing to apply: ${plan.reason}`);
  }
}

// ---------------------------------------------------------------------------
// Receipt file

/**
 * spec PATH, "Persisted receipt": writes an applied receipt to
 * <prefix>/path-entry.json, mode 0600, with one rename. A receipt with
 * applied: false is not written (an earlier receipt stays); returns whether
 * the file was written.
 */
export function writePathReceipt(layout: Layout, receipt: PathReceipt, options: PathIoOptions = {}): boolean {
  if (!receipt.applied) return false;
  const fs = options.fs ?? nodeFs;
  const tmp = `${layout.pathReceipt}.${process.pid}.tmp`;
  let fd: number | undefined;
  try {
    fd = fs.openSync(tmp, O.O_WRONLY | O.O_CREAT | O.O_EXCL | NOFOLLOW, 0o600);
    fs.fchmodSync(fd, 0o600);
    writeAll(fs, fd, Buffer.from(receiptJson(receipt)));
    fs.fsyncSync(fd);
    fs.closeSync(fd);
    fd = undefined;
    fs.renameSync(tmp, layout.pathReceipt);
    return true;
  } catch (e) {
    if (fd !== undefined) fs.closeSync(fd);
    try {
      fs.unlinkSync(tmp);
    } catch {
      /* it was never created */
    }
    throw e;
  }
}

export type ReadReceipt = { status: "missing" } | ReceiptCheck;

/** spec PATH, "Reading it back": only what this prefix writes is valid. */
export function readPathReceipt(layout: Layout, options: PathIoOptions & { env: Env; home?: string; platform?: Platform }): ReadReceipt {
  const fs = options.fs ?? nodeFs;
  const home = options.home ?? layout.home;
  let st: nodeFs.Stats;
  try {
    st = fs.lstatSync(layout.pathReceipt);
  } catch (e) {
    if (code(e) === "ENOENT") return { status: "missing" };
    throw e;
  }
  if (!st.isFile()) return { status: "invalid", reason: "path-entry.json is a link or not a file", manual: null };
  if (st.size > 64 * 1024) return { status: "invalid", reason: "path-entry.json is too large", manual: null };
  let text: string;
  const fd = fs.openSync(layout.pathReceipt, O.O_RDONLY | NOFOLLOW | NONBLOCK);
  try {
    if (!fs.fstatSync(fd).isFile()) return { status: "invalid", reason: "path-entry.json is not a file", manual: null };
    text = readAll(fs, fd).toString("utf8");
  } finally {
    fs.closeSync(fd);
  }
  return checkReceipt(text, {
    home,
    env: options.env,
    platform: options.platform ?? layout.platform,
    bin: layout.bin,
    launcher: layout.launcher,
  });
}

// ---------------------------------------------------------------------------
// Remove

export type RemoveResult =
  /** Our entry is gone; `deleted` when the file we created went with it. */
  | { status: "removed"; deleted?: boolean }
  /** A receipt with applied: false: it was there before us, and stays. */
  | { status: "not-applied" }
  /** Nothing of ours is there any more. */
  | { status: "absent" }
  /** Something that is no longer exactly ours: kept and named. */
  | { status: "kept"; path: string; line?: string; reason: string };

function findLine(buf: Buffer, line: string): { start: number; end: number } | null {
  const needle = Buffer.from(line);
  let from = buf.length;
  // The last whole-line occurrence: ours was appended.
  while (from >= 0) {
    const at = buf.lastIndexOf(needle, from);
    if (at < 0) return null;
    const after = at + needle.length;
    const startsLine = at === 0 || buf[at - 1] === 0x0a;
    const endsLine = after === buf.length || buf[after] === 0x0a;
    if (startsLine && endsLine) return { start: at, end: after < buf.length ? after + 1 : after };
    from = at - 1;
  }
  return null;
}

function removeLine(receipt: Extract<PathReceipt, { kind: "profile" }>, fs: PathFs): RemoveResult {
  let fd: number;
  try {
    fd = fs.openSync(receipt.path, O.O_RDWR | NOFOLLOW | NONBLOCK);
  } catch (e) {
    if (code(e) === "ENOENT") return { status: "absent" };
    if (code(e) === "ELOOP" || code(e) === "EMLINK") {
      return { status: "kept", path: receipt.path, reason: "it is now a link; it was not changed" };
    }
    throw e;
  }
  let emptied = false;
  try {
    if (!fs.fstatSync(fd).isFile()) return { status: "kept", path: receipt.path, reason: "it is no longer a regular file" };
    const buf = readAll(fs, fd);
    const found = findLine(buf, receipt.line);
    if (!found) {
      const left = markedLines(buf.toString("utf8"));
      if (left.length) return { status: "kept", path: receipt.path, line: left[left.length - 1], reason: "the marked line was edited" };
      return { status: "absent" };
    }
    let { start } = found;
    const { end } = found;
    // Our line was the end of the file: take back the newline we added before it too.
    if (end === buf.length && receipt.separator === "\n" && start > 0 && buf[start - 1] === 0x0a) start -= 1;
    const tail = buf.subarray(end);
    if (tail.length) writeAll(fs, fd, Buffer.from(tail), start);
    fs.ftruncateSync(fd, start + tail.length);
    fs.fsyncSync(fd);
    emptied = start + tail.length === 0;
  } finally {
    fs.closeSync(fd);
  }
  if (emptied && receipt.create) {
    const st = fs.lstatSync(receipt.path);
    if (st.isFile() && st.size === 0) {
      fs.unlinkSync(receipt.path);
      return { status: "removed", deleted: true };
    }
  }
  return { status: "removed" };
}

/**
 * spec PATH / "Self-uninstall": takes back exactly what the receipt records.
 * Never reverts applied: false. Throws when the change cannot be undone.
 */
export async function removePathEntry(receipt: PathReceipt, options: PathIoOptions = {}): Promise<RemoveResult> {
  if (!receipt.applied) return { status: "not-applied" };
  const fs = options.fs ?? nodeFs;
  switch (receipt.kind) {
    case "link": {
      let st: nodeFs.Stats;
      try {
        st = fs.lstatSync(receipt.path);
      } catch (e) {
        if (code(e) === "ENOENT") return { status: "absent" };
        throw e;
      }
      if (!st.isSymbolicLink() || fs.readlinkSync(receipt.path) !== receipt.target) {
        return { status: "kept", path: receipt.path, reason: "it no longer links to the bundled launcher" };
      }
      fs.unlinkSync(receipt.path);
      return { status: "removed" };
    }
    case "profile":
      return removeLine(receipt, fs);
    case "registry": {
      const registry = options.registry ?? windowsRegistry();
      const current = await registry.readUserPath();
      if (!current || !userPathHolds(current.value, receipt.entry)) return { status: "absent" };
      await registry.writeUserPath({ value: userPathRemove(current.value, receipt.entry), type: current.type });
      await registry.broadcastEnvironmentChange();
      return { status: "removed" };
    }
  }
}

// ---------------------------------------------------------------------------
// The Windows adapter: Windows PowerShell, data through the environment only.

const PS_READ = [
  "$ErrorActionPreference = 'Stop'",
  "$k = [Microsoft.Win32.Registry]::CurrentUser.OpenSubKey('Environment')",
  "if ($null -eq $k) { 'absent'; exit 0 }",
  // DoNotExpandEnvironmentNames: the raw text, %VAR% as written.
  "$v = $k.GetValue('Path', $null, [Microsoft.Win32.RegistryValueOptions]::DoNotExpandEnvironmentNames)",
  "if ($null -eq $v) { 'absent'; exit 0 }",
  "$t = $k.GetValueKind('Path')",
  "'' + $t + ' ' + [Convert]::ToBase64String([Text.Encoding]::UTF8.GetBytes([string]$v))",
].join("\n");

const PS_WRITE = [
  "$ErrorActionPreference = 'Stop'",
  "$v = [Text.Encoding]::UTF8.GetString([Convert]::FromBase64String($env:GENTLE_SHELL_PATH_VALUE))",
  "$kind = [Microsoft.Win32.RegistryValueKind]::ExpandString",
  "if ($env:GENTLE_SHELL_PATH_TYPE -eq 'REG_SZ') { $kind = [Microsoft.Win32.RegistryValueKind]::String }",
  "$k = [Microsoft.Win32.Registry]::CurrentUser.CreateSubKey('Environment')",
  "$k.SetValue('Path', $v, $kind)",
  "$k.Close()",
].join("\n");

const PS_BROADCAST = [
  "$ErrorActionPreference = 'Stop'",
  "$sig = '[DllImport(\"user32.dll\", CharSet = CharSet.Unicode, SetLastError = true)] public static extern System.IntPtr SendMessageTimeout(System.IntPtr hWnd, uint msg, System.UIntPtr wParam, string lParam, uint flags, uint timeout, out System.UIntPtr result);'",
  "Add-Type -Namespace GentleShellSetup -Name User32 -MemberDefinition $sig",
  "$r = [System.UIntPtr]::Zero",
  // HWND_BROADCAST, WM_SETTINGCHANGE, SMTO_ABORTIFHUNG, 5 s
  "[void][GentleShellSetup.User32]::SendMessageTimeout([System.IntPtr]0xffff, 0x1A, [System.UIntPtr]::Zero, 'Environment', 2, 5000, [ref]$r)",
].join("\n");

function failed(what: string, r: PowerShellResult): Error {
  return new Error(`${what} failed (exit ${r.status}): ${r.stderr.trim().slice(0, 500)}`);
}

/** The real adapter (Windows only): reads raw, keeps the value's type, broadcasts. */
export function windowsRegistry(run: PowerShellRunner = runWindowsPowerShell): RegistryAdapter {
  return {
    async readUserPath() {
      const r = await run(PS_READ, {});
      if (r.status !== 0) throw failed(`reading ${USER_PATH_KEY}\\${USER_PATH_NAME}`, r);
      const out = r.stdout.trim();
      if (out === "absent") return null;
      const m = /^(String|ExpandString)(?: ([A-Za-z0-9+/=]*))?$/.exec(out);
      if (!m) throw new Error(`${USER_PATH_KEY}\\${USER_PATH_NAME} is not text (${out.split(" ")[0]}); it was not changed`);
      return { type: m[1] === "String" ? "REG_SZ" : "REG_EXPAND_SZ", value: Buffer.from(m[2] ?? "", "base64").toString("utf8") };
    },
    async writeUserPath(value) {
      const r = await run(PS_WRITE, {
        GENTLE_SHELL_PATH_VALUE: Buffer.from(value.value, "utf8").toString("base64"),
        GENTLE_SHELL_PATH_TYPE: value.type,
      });
      if (r.status !== 0) throw failed(`writing ${USER_PATH_KEY}\\${USER_PATH_NAME}`, r);
    },
    async broadcastEnvironmentChange() {
      const r = await run(PS_BROADCAST, {});
      if (r.status !== 0) throw failed("announcing the new Path", r);
    },
  };
}

// ---------------------------------------------------------------------------
// The installer's step

export interface PathStepOptions extends PathIoOptions {
  env: Env;
  platform?: Platform;
  /** --no-modify-path or GENTLE_SHELL_NO_MODIFY_PATH=1: change nothing, print the line. */
  noModifyPath?: boolean;
}

export interface PathStepOutcome {
  status: "applied" | "already" | "manual" | "skipped" | "failed";
  plan?: PathEntryPlan;
  receipt?: PathReceipt;
  /** The file (or the link, or the Path value) concerned. */
  file?: string;
  /** The exact line (manual, skipped, failed). */
  line?: string;
  detail?: string;
  /** One sentence: what to do to get `gentle-shell` in the current terminal. */
  nextStep: string;
}

const MANUAL_WHY: Record<string, string> = {
  link: "is a symlink",
  "read-only": "is read-only",
  "not-a-file": "is not a regular file",
  "linked-folder": "is reached through a linked folder",
  "folder-not-writable": "does not exist and its folder is not writable",
  unreadable: "cannot be read",
};

/**
 * spec "Migration" step list, bundled-path: plan, apply, persist the receipt
 * (taking the entry back when it cannot be written). Never throws.
 */
export async function bundledPathStep(layout: Layout, options: PathStepOptions): Promise<PathStepOutcome> {
  const platform = options.platform ?? layout.platform;
  const home = layout.home;
  const show = (p: string) => tildify(p, home);
  const winEntry = userPathEntry(layout.bin);
  const addEntrySentence = `Add ${winEntry} to your user Path (Settings, Environment Variables), then open a new terminal.`;
  const byHand = (facts: PathFacts | null): Pick<PathStepOutcome, "file" | "line" | "nextStep"> => {
    if (platform === "win32") return { file: `${USER_PATH_KEY}\\${USER_PATH_NAME}`, line: winEntry, nextStep: addEntrySentence };
    const t = facts ? profileTarget(facts) : null;
    if (!t) return { nextStep: `Add ${show(layout.bin)} to your PATH, then open a new terminal.` };
    return { file: t.file, line: t.line, nextStep: addLineSentence(t.file, t.line, home) };
  };

  let facts: PathFacts;
  try {
    facts = await collectPathFacts(layout, { ...options, platform });
  } catch (e) {
    return { status: "failed", detail: tildifyText((e as Error).message, home), ...byHand(null) };
  }
  const plan = pathEntryPlan(facts);

  if (plan.kind === "impossible") {
    return { status: "failed", plan, detail: plan.reason, nextStep: `Run ${show(layout.launcher)} by its full path: ${plan.reason}.` };
  }
  if (plan.kind === "none") {
    const e = plan.existing;
    const inTerminal = pathEntries(options.env.PATH, platform);
    const dir = e.kind === "link" ? dirname(e.path) : layout.bin;
    const here = inTerminal.some((p) => (platform === "win32" ? p.toLowerCase() === dir.toLowerCase() : p === dir));
    const file = e.kind === "line" ? e.file : e.kind === "link" ? e.path : `${e.key}\\${e.name}`;
    const nextStep = here
      ? "Nothing to do: `gentle-shell` is already on this terminal's PATH."
      : e.kind === "line"
        ? `Run \`${reloadCommand(e.shell, e.file, home)}\` or open a new terminal to use \`gentle-shell\` (${show(e.file)} already adds it).`
        : "Open a new terminal to use `gentle-shell`; the PATH entry is already there.";
    return { status: "already", plan, file, nextStep };
  }
  if (options.noModifyPath) {
    return { status: "skipped", plan, detail: "the PATH was left unchanged (--no-modify-path)", ...byHand(facts) };
  }
  if (plan.kind === "manual") {
    return {
      status: "manual",
      plan,
      file: plan.file,
      line: plan.line,
      detail: `${show(plan.file)} ${MANUAL_WHY[plan.reason]}, so it was left untouched`,
      nextStep: addLineSentence(plan.file, plan.line, home),
    };
  }

  let receipt: PathReceipt;
  try {
    receipt = await applyPathEntry(plan, { ...options, home });
  } catch (e) {
    return { status: "failed", plan, detail: tildifyText((e as Error).message, home), ...byHand(facts) };
  }
  try {
    writePathReceipt(layout, receipt, options);
  } catch (e) {
    let undo = "the PATH entry was taken back";
    try {
      await removePathEntry(receipt, options);
    } catch (u) {
      undo = `taking the PATH entry back failed too: ${(u as Error).message}`;
    }
    return {
      status: "failed",
      plan,
      receipt,
      detail: tildifyText(`could not write ${layout.pathReceipt}: ${(e as Error).message}; ${undo}`, home),
      ...byHand(facts),
    };
  }

  switch (plan.kind) {
    case "link":
      return {
        status: receipt.applied ? "applied" : "already",
        plan,
        receipt,
        file: plan.path,
        nextStep: "Nothing to do: run `gentle-shell` now, ~/.local/bin is already on this terminal's PATH.",
      };
    case "line":
      return {
        status: receipt.applied ? "applied" : "already",
        plan,
        receipt,
        file: plan.file,
        line: plan.line,
        nextStep:
          plan.shell === "sh"
            ? `Run \`${reloadCommand(plan.shell, plan.file, home)}\` in this terminal; new login shells read it too.`
            : `Run \`${reloadCommand(plan.shell, plan.file, home)}\` or open a new terminal to use \`gentle-shell\`.`,
      };
    case "registry":
      return {
        status: receipt.applied ? "applied" : "already",
        plan,
        receipt,
        file: `${plan.key}\\${plan.name}`,
        line: plan.entry,
        nextStep: `Open a new terminal to use \`gentle-shell\`, or run \`$env:Path += ';${plan.entry.replace(/'/g, "''")}'\` in this PowerShell.`,
      };
  }
}

/** For shadowingCommand's `isCommand`: a regular file (through links) that is executable (any file on Windows). */
export function isCommandFile(file: string, options: { fs?: PathFs; platform?: Platform } = {}): boolean {
  const fs = options.fs ?? nodeFs;
  try {
    const st = fs.statSync(file);
    return st.isFile() && ((options.platform ?? process.platform) === "win32" || (st.mode & 0o111) !== 0);
  } catch {
    return false;
  }
}
