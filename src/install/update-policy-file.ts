/**
 * The update policy's sources on disk and in the environment (issue 41; the
 * decision is src/core/update-policy.ts):
 *
 *   - the machine-wide policy file: /etc/gentle-shell/policy.json on macOS and
 *     Linux, %ProgramData%\gentle-shell\policy.json on Windows (ProgramData
 *     from the environment, else %SystemDrive%\ProgramData, else C:\ProgramData);
 *   - GENTLE_SHELL_UPDATES;
 *   - the launcher's config.json (GENTLE_SHELL_CONFIG, else config/config.json in the prefix).
 *
 * `root` moves the machine-wide file under another folder (a test's; a
 * release build never passes one, so no variable a user sets can move it).
 *
 * A policy a user cannot override is one a user cannot write: on macOS and
 * Linux the file and its folder must belong to root (or, under a test's root,
 * to this process's user) and be writable by no group or other user; one that
 * is not counts as unreadable, so updates are off until an administrator fixes
 * it. On Windows, %ProgramData% is read from the environment, which a user can
 * change: the default C:\ProgramData is therefore asked first, and a file
 * there wins over one under another ProgramData. (Windows ACLs are not read.)
 */
import { promises as fs } from "node:fs";
import { errnoCode } from "../core/errno";
import { envValue, type Env } from "../core/environment";
import { tildify, type Layout, type Platform } from "../core/layout";
import { dirname, join } from "../core/native-path";
import { mergePolicy, type PolicySource, UPDATES_VARIABLE, type UpdatePolicy } from "../core/update-policy";
import { type LauncherConfigFile, readLauncherConfig } from "./launcher-config-file";

/** A policy file is a few settings: anything larger is not one. */
const POLICY_MAX_BYTES = 64 * 1024;

/** Where the machine-wide policy file may be, strongest first (see above); under `root` when a test gives one. */
export function machinePolicyPaths(platform: Platform, env: Env, root?: string): string[] {
  const named = machinePolicyPath(platform, env, root);
  if (platform !== "win32" || root !== undefined) return [named];
  const fixed = join("C:\\ProgramData", "gentle-shell", "policy.json");
  return named.toLowerCase() === fixed.toLowerCase() ? [fixed] : [fixed, named];
}

/** Where %ProgramData% (or /etc) puts the machine-wide policy file; under `root` when a test gives one. */
export function machinePolicyPath(platform: Platform, env: Env, root?: string): string {
  if (platform !== "win32") return join(root ?? "/", "etc", "gentle-shell", "policy.json");
  const programData =
    root ??
    envValue(env, "ProgramData", "win32", { emptyIsUnset: true }) ??
    `${envValue(env, "SystemDrive", "win32", { emptyIsUnset: true }) ?? "C:"}\\ProgramData`;
  return join(programData, "gentle-shell", "policy.json");
}

/** Why a file or folder can be changed by someone other than `owners`, or null (POSIX modes and owners). */
function writableByOthers(what: "it" | "its folder", stat: { uid: number; mode: number }, owners: readonly number[]): string | null {
  if (!owners.includes(stat.uid)) return `${what} belongs to uid ${stat.uid}, not to root`;
  const mode = (stat.mode & 0o777).toString(8).padStart(4, "0");
  if ((stat.mode & 0o022) !== 0) return `${what} has mode ${mode}, which lets other users change it`;
  return null;
}

/**
 * One policy file: absent, its object, or why it cannot be read (a sentence's clause). With `owners` (POSIX), the
 * file and its folder must belong to one of them and be writable by nobody else, or the file counts as unreadable.
 */
export async function readPolicySource(path: string, owners?: readonly number[]): Promise<PolicySource> {
  let text: string;
  try {
    const stat = await fs.stat(path);
    if (!stat.isFile()) return { kind: "unreadable", reason: "it is not a regular file" };
    if (owners) {
      const why = writableByOthers("it", stat, owners) ?? writableByOthers("its folder", await fs.stat(dirname(path)), owners);
      if (why) return { kind: "unreadable", reason: why };
    }
    if (stat.size > POLICY_MAX_BYTES) return { kind: "unreadable", reason: `it is larger than ${POLICY_MAX_BYTES} bytes` };
    text = await fs.readFile(path, "utf8");
  } catch (error) {
    const code = errnoCode(error);
    if (code === "ENOENT" || code === "ENOTDIR") return { kind: "absent" };
    return { kind: "unreadable", reason: code === "EACCES" || code === "EPERM" ? "permission denied" : (code ?? (error as Error).message) };
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return { kind: "unreadable", reason: "it is not valid JSON" };
  }
  if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed)) return { kind: "unreadable", reason: "it is not a JSON object" };
  return { kind: "read", settings: parsed as Record<string, unknown> };
}

/** The launcher's config.json as a policy source (read here unless the caller has read it): its settings, or why it cannot be read. */
async function configSource(layout: Layout, env: Env, given?: LauncherConfigFile): Promise<{ path: string; source: PolicySource }> {
  try {
    const file = given ?? (await readLauncherConfig(layout, env));
    // A missing file reads as no settings; one that is not JSON, or not a file, is said.
    if (file.config.unsavable) return { path: file.path, source: { kind: "unreadable", reason: file.config.unsavable } };
    return { path: file.path, source: { kind: "read", settings: file.config.settings } };
  } catch (error) {
    const code = errnoCode(error);
    return { path: "config.json", source: { kind: "unreadable", reason: code === "EACCES" ? "permission denied" : (code ?? (error as Error).message) } };
  }
}

/** The policy that holds for this install now, its sources named as the user would type them (under ~). */
export async function readUpdatePolicy(layout: Layout, env: Env, options: { root?: string; configFile?: LauncherConfigFile } = {}): Promise<UpdatePolicy> {
  // Root's, or under a test's root this user's too (a test cannot make root's files as another user).
  const own = process.getuid?.();
  const owners = layout.platform === "win32" ? undefined : options.root !== undefined && own !== undefined ? [0, own] : [0];
  let machinePath = "";
  let machine: PolicySource = { kind: "absent" };
  for (const path of machinePolicyPaths(layout.platform, env, options.root)) {
    machinePath ||= path;
    machine = await readPolicySource(path, owners);
    if (machine.kind !== "absent") {
      machinePath = path;
      break;
    }
  }
  const config = await configSource(layout, env, options.configFile);
  return mergePolicy({
    machine: { path: machinePath, source: machine },
    env: envValue(env, UPDATES_VARIABLE, layout.platform),
    config: { path: tildify(config.path, layout.home), source: config.source },
  });
}
