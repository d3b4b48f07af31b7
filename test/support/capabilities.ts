/**
 * Capability probes for the portable unit suite (issue 24). A test that
 * needs something a machine may lack asks for it by name, and is skipped,
 * with the reason, only where a probe on this very machine said no: never
 * because of the platform's or the emulator's name.
 *
 *   it("never follows a link", (ctx) => {
 *     requires(ctx, "symlinks");
 *     ...
 *   });
 *
 * Each probe runs once per worker, in a scratch folder of the system's
 * temporary folder, and is removed. With GSS_SKIP_LOG set, every skip is
 * appended to that file as a JSON line ({ file, test, reason }), which the
 * Windows lane counts (test/wine/lane.sh).
 */
import { spawnSync } from "node:child_process";
import {
  appendFileSync,
  chmodSync,
  chownSync,
  closeSync,
  existsSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  realpathSync,
  renameSync,
  rmSync,
  statSync,
  symlinkSync,
  unlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { isAbsolute, join } from "node:path";
import { pathToFileURL } from "node:url";
import { REPO_ROOT } from "./paths";

export type Capability =
  | "symlinks"
  | "posix-modes"
  | "posix-shell"
  | "fifos"
  | "posix-path-scratch"
  | "owners"
  | "immutable-files"
  | "undeletable-files"
  | "replace-open-files"
  | "short-names"
  | "noexec-mounts"
  | "openssl"
  | "bash"
  | "zsh"
  | "fish"
  | "nu"
  | "pwsh";

const REASONS: Record<Capability, string> = {
  symlinks: "needs symbolic links, and this machine cannot make one",
  "posix-modes": "needs POSIX file modes, and this file system does not keep them",
  "posix-shell": "needs /bin/sh, which this machine cannot run",
  fifos: "needs mkfifo, which this machine lacks",
  "posix-path-scratch": "needs a scratch folder that can be a POSIX PATH entry, and the system's temporary folder holds ':'",
  owners: "needs to give a file to another user (chown, as root), and this process cannot",
  "immutable-files":
    "needs a file that a rename cannot replace (chattr +i as root on Linux, chflags uchg on macOS, read-only on Windows), and this machine cannot make one",
  "undeletable-files":
    "needs a file that an unlink refuses (chattr +i as root on Linux, chflags uchg on macOS; Node removes a read-only file on Windows), and this machine cannot make one",
  "replace-open-files": "needs to rename a file over one that is open, which this file system refuses (Windows)",
  "short-names": "needs 8.3 short names (RUNNER~1), which this file system does not give",
  "noexec-mounts": "needs a mount namespace of its own (unshare -m) in which a folder is mounted noexec, and this process cannot make one",
  openssl: "needs the openssl command to make a test certificate authority (test/support/test-ca.ts), which this machine lacks",
  bash: "needs a bash this process can start, and this machine has none",
  zsh: "needs a zsh this process can start, and this machine has none",
  fish: "needs a fish this process can start, and this machine has none",
  nu: "needs a nu this process can start: build/test-shells.mjs (npm test runs it first) unpacks nushell's verified npm release into the toolchain cache, and none is there for this user, or none is pinned for this platform",
  pwsh: "needs PowerShell 7 (pwsh), which neither Debian nor the npm registry gives this machine; ci.yml's linux job (.ci/run on ubuntu-latest, which has pwsh) runs these tests",
};

/** The verified nu build/test-shells.mjs unpacks (npm test runs it first), where it is for this machine. */
const { nuPath } = (await import(/* @vite-ignore */ pathToFileURL(join(REPO_ROOT, "build", "test-shells.mjs")).href)) as { nuPath(): string };

/**
 * The program of a shell a test starts: nu is the verified nushell release
 * in the toolchain cache (build/test-shells.mjs ensureNu), any other shell its
 * full path from this process's PATH (a test's new shell gets a PATH of its
 * own), else its bare name.
 */
export function shellProgram(name: "bash" | "zsh" | "fish" | "nu" | "pwsh"): string {
  if (name === "nu") {
    try {
      return nuPath();
    } catch {
      return "nu";
    }
  }
  for (const dir of (process.env.PATH ?? "").split(process.platform === "win32" ? ";" : ":"))
    if (isAbsolute(dir) && existsSync(join(dir, name))) return join(dir, name);
  return name;
}

/**
 * `command` run in a mount namespace of its own (unshare -m; private, so
 * nothing reaches this machine's mounts) in which `folder` is mounted
 * noexec: its files can be written and read there, never executed. For a
 * test that asks for "noexec-mounts".
 */
export function inNoexecMount(folder: string, command: string[]): string[] {
  const script = 'f=$1; shift; mount --bind "$f" "$f" && mount -o remount,bind,noexec "$f" "$f" && exec "$@"';
  return ["unshare", "--mount", "--propagation", "private", "sh", "-c", script, "sh", folder, ...command];
}

/**
 * The 8.3 short form of an existing path, as cmd.exe's %~s gives it (the form
 * GitHub's Windows runners have in TEMP), or null where there is none.
 */
export function shortName(path: string): string | null {
  if (process.platform !== "win32" || /["%]/.test(path)) return null;
  const cmd = process.env.ComSpec ?? "cmd.exe";
  const result = spawnSync(cmd, ["/d", "/s", "/c", `"for %I in ("${path}") do @echo %~sI"`], { encoding: "utf8", windowsVerbatimArguments: true });
  const short = result.status === 0 ? result.stdout.trim() : "";
  return short && short !== path ? short : null;
}

/**
 * Makes `file` one that no rename may replace (on: true) or undoes it: chattr
 * +i on Linux (root only), chflags uchg on macOS (its owner), the read-only
 * attribute on Windows. Returns whether the command worked.
 */
export function setImmutable(file: string, on: boolean): boolean {
  if (process.platform === "win32") {
    chmodSync(file, on ? 0o444 : 0o644);
    return true;
  }
  const [command, flag] = process.platform === "darwin" ? ["chflags", on ? "uchg" : "nouchg"] : ["chattr", on ? "+i" : "-i"];
  return spawnSync(command, [flag, file], { stdio: "ignore" }).status === 0;
}

function inScratch<T>(probe: (dir: string) => T, fallback: T): T {
  const dir = mkdtempSync(join(tmpdir(), "gss-probe-"));
  try {
    return probe(dir);
  } catch {
    return fallback;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** A scratch file made immutable (setImmutable), with another file beside it, then `act` on them: true when the act is refused. */
function refusedOnImmutable(act: (target: string, other: string) => void): boolean {
  return inScratch((dir) => {
    const [target, other] = [join(dir, "target"), join(dir, "other")];
    writeFileSync(target, "x");
    writeFileSync(other, "y");
    if (!setImmutable(target, true)) return false;
    try {
      act(target, other);
      return false;
    } catch {
      return true;
    } finally {
      setImmutable(target, false);
    }
  }, false);
}

const PROBES: Record<Capability, () => boolean> = {
  symlinks: () =>
    inScratch((dir) => {
      writeFileSync(join(dir, "target"), "x");
      symlinkSync("target", join(dir, "link"));
      return lstatSync(join(dir, "link")).isSymbolicLink();
    }, false),
  "posix-modes": () =>
    inScratch((dir) => {
      const file = join(dir, "file");
      writeFileSync(file, "x");
      chmodSync(file, 0o640);
      return (statSync(file).mode & 0o777) === 0o640;
    }, false),
  "posix-shell": () => existsSync("/bin/sh") && spawnSync("/bin/sh", ["-c", "exit 7"]).status === 7,
  openssl: () => spawnSync("openssl", ["version"]).status === 0,
  bash: () => spawnSync("bash", ["-c", "exit 7"]).status === 7,
  zsh: () => spawnSync("zsh", ["-f", "-c", "exit 7"]).status === 7,
  fish: () => spawnSync("fish", ["--no-config", "-c", "exit 7"]).status === 7,
  nu: () => spawnSync(shellProgram("nu"), ["-n", "-c", "exit 7"]).status === 7,
  pwsh: () => spawnSync("pwsh", ["-NoProfile", "-NonInteractive", "-Command", "exit 7"]).status === 7,
  fifos: () =>
    inScratch((dir) => {
      const fifo = join(dir, "fifo");
      return spawnSync("mkfifo", [fifo]).status === 0 && lstatSync(fifo).isFIFO();
    }, false),
  "posix-path-scratch": () => !tmpdir().includes(":"),
  // Giving a file away, not only having uids: macOS's runner user has uids but cannot chown.
  owners: () =>
    typeof process.getuid === "function" &&
    inScratch((dir) => {
      const file = join(dir, "file");
      writeFileSync(file, "x");
      chownSync(file, 12345, 12345);
      return statSync(file).uid === 12345;
    }, false),
  "immutable-files": () => refusedOnImmutable((target, other) => renameSync(other, target)),
  "undeletable-files": () => refusedOnImmutable((target) => unlinkSync(target)),
  "replace-open-files": () =>
    inScratch((dir) => {
      const [target, other] = [join(dir, "target"), join(dir, "other")];
      writeFileSync(target, "x");
      writeFileSync(other, "y");
      const fd = openSync(target, "r");
      try {
        renameSync(other, target);
        return true;
      } finally {
        closeSync(fd);
      }
    }, false),
  "short-names": () =>
    inScratch((dir) => {
      const long = join(dir, "a long folder name");
      mkdirSync(long);
      const short = shortName(long);
      return short !== null && existsSync(short) && realpathSync.native(short) === realpathSync.native(long);
    }, false),
  // A script in the folder runs before the mount, and is refused inside it.
  "noexec-mounts": () =>
    process.platform === "linux" &&
    inScratch((dir) => {
      const script = join(dir, "t");
      writeFileSync(script, "#!/bin/sh\nexit 0\n", { mode: 0o755 });
      if (spawnSync(script).status !== 0) return false;
      return spawnSync(inNoexecMount(dir, [script])[0]!, inNoexecMount(dir, [script]).slice(1)).status === 126;
    }, false),
};

const seen = new Map<Capability, boolean>();

/** Whether this machine has `capability` (probed once per worker). */
export function has(capability: Capability): boolean {
  let answer = seen.get(capability);
  if (answer === undefined) {
    answer = PROBES[capability]();
    seen.set(capability, answer);
  }
  return answer;
}

interface SkipContext {
  skip(condition: boolean, note?: string): void;
  task: { name: string; file?: { name: string } };
}

/** Skip the running test, naming why, unless this machine has every capability in `needs`. */
export function requires(ctx: SkipContext, ...needs: Capability[]): void {
  const missing = needs.filter((n) => !has(n));
  if (missing.length === 0) return;
  const reason = missing.map((n) => REASONS[n]).join("; ");
  const log = process.env.GSS_SKIP_LOG;
  if (log) appendFileSync(log, `${JSON.stringify({ file: ctx.task.file?.name ?? "", test: ctx.task.name, reason })}\n`);
  ctx.skip(true, reason);
}
