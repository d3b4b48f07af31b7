/**
 * resolvePrivateInstall (spec: "Launcher in a bundled
 * install"). The engine runs in bundled mode only from a finished version of
 * a bundled install that `current` names; it runs only the Pi that version
 * pins, with the user's environment plus Gentle Shell's own variables.
 */
import { errnoCode } from "../core/errno";
import { closeSync, readFileSync, realpathSync } from "node:fs";
import { basename, dirname, join, normalize } from "../core/native-path";
import { isWithin, prefixLayout, type Layout, type Platform } from "../core/layout";
import { PI_PACKAGE, SHELL_PACKAGE } from "../core/package-names";
import { VERSION_MARKER } from "../install/version-marker";
import { readCurrent } from "../install/activate";
import { openOwnFileSync } from "../io/safe-fs";
import type { Host } from "../io/host";

export interface PrivateInstall {
  layout: Layout;
  id: string;
  versionDir: string;
  shell: string;
  pi: string;
  piRoot: string;
  piCli: string;
  gentlePiRoot: string;
  /** current does not name it: only GENTLE_SHELL_VERIFY_VERSION let it through, for --version. */
  verifyOnly: boolean;
}

export class PrivateInstallError extends Error {}

/**
 * current names this version's folder, but its marker is not the finished id (an install still running, or
 * killed): no version is active, and the launcher's own sentence says so (src/install/launcher.ts).
 */
export class NoActiveVersionError extends PrivateInstallError {}

interface PiPackage {
  version?: string;
  bin?: string | Record<string, string>;
}

/**
 * The installed Pi's package.json: the exact-Pi check reads its version (no
 * Pi is started for it). Pi's folder may be pnpm's link into .pnpm, but it
 * must lie inside the version folder, and package.json itself must be a
 * regular file there (never followed through a link). A missing or unreadable
 * file reads as no Pi.
 */
export async function readPiPackage(piRoot: string, realVersionDir: string, id: string, platform: Platform): Promise<PiPackage> {
  // Synchronous, as every read of a launch's resolve: a handful of tiny files, each a few system calls,
  // instead of a round trip through the thread pool for each step (the JS realpath alone takes one per path part).
  let realRoot: string;
  try {
    realRoot = normalize(realpathSync.native(piRoot));
  } catch {
    return {};
  }
  if (realRoot === normalize(realVersionDir) || !isWithin(realVersionDir, realRoot))
    throw new PrivateInstallError(`Pi in versions/${id} lies outside the version folder`);
  let text: string;
  try {
    // Never through a link, on Windows too, where the open cannot refuse one (io/safe-fs.ts).
    const fd = openOwnFileSync(join(realRoot, "package.json"), { platform });
    try {
      text = readFileSync(fd, "utf8");
    } finally {
      closeSync(fd);
    }
  } catch (error) {
    if (errnoCode(error) === "ELOOP" || errnoCode(error) === "EMLINK")
      throw new PrivateInstallError(`Pi's package.json in versions/${id} is a link, not a file`);
    return {};
  }
  try {
    const parsed = JSON.parse(text) as unknown;
    if (parsed && typeof parsed === "object" && !Array.isArray(parsed)) return parsed as PiPackage;
  } catch {
    // Reported below.
  }
  throw new PrivateInstallError(`Pi's package.json in versions/${id} is not valid JSON. Run gentle-shell upgrade or the Gentle Shell installer again.`);
}

/**
 * The prefix as the installer named it. The engine finds itself by its real
 * path, but the installer, its launcher and the PATH receipt name
 * $HOME/.gentle-shell; when HOME is reached through a link (HOME=/tmp/link
 * with /tmp/link → /tmp/real) that name is kept, so both sides agree.
 */
export function prefixAsInstalled(realPrefix: string, home: string, platform: Platform): string {
  if (platform === "win32") return realPrefix;
  const named = join(home, ".gentle-shell");
  if (named === realPrefix) return realPrefix;
  try {
    return realpathSync(named) === realPrefix ? named : realPrefix;
  } catch {
    return realPrefix;
  }
}

/** A small file's text (read at once: see readPiPackage), or null when it does not exist. */
function textOrNull(path: string): string | null {
  try {
    return readFileSync(path, "utf8");
  } catch (error) {
    if (errnoCode(error) === "ENOENT") return null;
    throw error;
  }
}

/** From the engine's own path (versions/<id>/.gentle-shell/engine.cjs) to the bundled install it belongs to. */
export async function resolvePrivateInstall(enginePath: string, host: Pick<Host, "env" | "platform" | "home" | "pins">): Promise<PrivateInstall> {
  const { env, platform, home, pins } = host;
  // One realpath on both sides of every comparison: the native one (the JS one keeps 8.3 short names such as RUNNER~1 on Windows).
  const real = realpathSync.native(enginePath);
  const realVersionDir = dirname(dirname(real));
  const versions = dirname(realVersionDir);
  const id = basename(realVersionDir);
  if (basename(versions) !== "versions") throw new PrivateInstallError("this engine does not run from a version of a bundled install");
  const prefix = prefixAsInstalled(dirname(versions), home, platform);
  const layout = prefixLayout({ home, platform, pins, prefix, windowsPrefix: prefix });
  const versionDir = join(layout.versions, id);
  if (versionDir !== realVersionDir && realpathSync.native(versionDir) !== realVersionDir) {
    throw new PrivateInstallError("this engine does not run from a version of a bundled install");
  }
  const marker = textOrNull(join(versionDir, VERSION_MARKER))?.trim();
  const current = await readCurrent(layout).catch(() => null);
  if (marker !== id) {
    const why = `versions/${id} is not a finished install`;
    throw current === id ? new NoActiveVersionError(why) : new PrivateInstallError(why);
  }
  const verify = env.GENTLE_SHELL_VERIFY_VERSION;
  if (current !== id && verify !== id) throw new PrivateInstallError(`current does not name versions/${id}`);
  const manifest = JSON.parse(textOrNull(join(versionDir, "package.json")) ?? "{}") as {
    dependencies?: Record<string, string>;
  };
  const pi = manifest.dependencies?.[PI_PACKAGE];
  const shell = manifest.dependencies?.[SHELL_PACKAGE];
  if (!pi || !shell) throw new PrivateInstallError(`versions/${id} has no release manifest`);
  const piRoot = join(versionDir, "node_modules", PI_PACKAGE);
  const piPkg = await readPiPackage(piRoot, realVersionDir, id, platform);
  if (piPkg.version !== pi) {
    throw new PrivateInstallError(
      `Gentle Shell ${shell} pins Pi ${pi}, but versions/${id} holds ${piPkg.version ? `Pi ${piPkg.version}` : "no Pi"}. Run gentle-shell upgrade or the Gentle Shell installer again.`,
    );
  }
  const bin = typeof piPkg.bin === "string" ? piPkg.bin : piPkg.bin?.pi;
  if (!bin) throw new PrivateInstallError(`Pi ${pi} in versions/${id} declares no pi executable`);
  const piCli = join(piRoot, bin);
  // One path rule for every platform (isWithin takes either separator), and never the folder itself.
  let realPiCli: string;
  try {
    realPiCli = realpathSync.native(piCli);
  } catch {
    throw new PrivateInstallError(`Pi ${pi} in versions/${id} has lost its executable ${bin}. Run gentle-shell upgrade or the Gentle Shell installer again.`);
  }
  const realVersion = realpathSync.native(versionDir);
  if (realPiCli === realVersion || !isWithin(realVersion, realPiCli)) {
    throw new PrivateInstallError(`Pi's executable in versions/${id} lies outside the version folder`);
  }
  // The realpath above found piCli, so it exists.
  return {
    layout,
    id,
    versionDir,
    shell,
    pi,
    piRoot,
    piCli,
    gentlePiRoot: join(versionDir, "node_modules", SHELL_PACKAGE),
    verifyOnly: current !== id,
  };
}
