/**
 * The Windows private folder (spec: "Layout", Windows paragraph).
 *
 * API
 *
 *   ensureWindowsPrivateFolder(env, adapter) → Promise<WindowsPrivateFolder>
 *     { prefix, marker, fallback, firstRejected?, created }
 *
 *   - env: the user's environment (keys in any case). %LOCALAPPDATA% is
 *     required; %USERPROFILE% only when the fallback is needed. Both must be
 *     drive-absolute (C:\...).
 *   - adapter: the OS behind a small interface (WindowsPrivateFolderAdapter).
 *     There is no default: the edge (src/cli/install.ts) passes the real one,
 *     windowsPrivateFolderAdapter() from ./adapter.ts; tests pass a model.
 *   - Pass `prefix` to prefixLayout as `windowsPrefix`.
 *
 * This file holds the decisions (which folder, whether an owner and ACL are
 * trusted, the protected DACL wanted, the marker text); it reaches the system
 * only through the adapter it is given (no node:fs, no processes).
 *
 * The rule
 *
 *   1. %LOCALAPPDATA%\gentle-shell first. It is rejected only when an
 *      untrusted owner or ACL is found: on %LOCALAPPDATA% itself, or on the
 *      folder (existing, or just created). Only then %USERPROFILE%\.gentle-shell-bundle
 *      is tried, under the same rule. Anything else (a link or a file in
 *      place of the folder, a marker that is not ours, a failing Windows
 *      process, an environment variable that is not an absolute path) stops
 *      with an error and never falls back.
 *   2. Trusted accounts: the current user, SYSTEM, Administrators and
 *      TrustedInstaller. The owner must be one of them. No allow entry may
 *      give write, delete, change-permissions or take-ownership rights to any
 *      other account (deny entries only take rights away; CREATOR OWNER,
 *      CREATOR GROUP and OWNER RIGHTS stand for accounts already checked). An
 *      ACL we cannot read is untrusted.
 *   3. The folder is created without its parents, then claimed with a
 *      protected DACL (no inheritance) holding exactly three entries, full
 *      control for the folder, subfolders and files: the current user,
 *      SYSTEM and Administrators. That is the same set the user's profile
 *      folders grant by default, so nothing that could read the profile
 *      before loses or gains access, while every other account (other
 *      users, Everyone, Users, Authenticated Users) is shut out. SYSTEM and
 *      Administrators can take any folder anyway; leaving them out would
 *      only break backup, antivirus and profile tools without protecting
 *      anything. The DACL is read back and checked before the marker is
 *      written.
 *   4. The marker `<prefix>\.gentle-shell-bundle` holds exactly
 *      WINDOWS_PREFIX_MARKER_TEXT. It is written once (exclusive create) and
 *      then left alone; self-uninstall requires this exact text. A marker
 *      with other text, or something else at its path, stops the claim
 *      before the DACL is touched.
 *
 * An existing folder that passes is claimed again (same DACL, which also
 * reaches inheriting files inside), so running twice changes nothing.
 */
import { win32 } from "node:path";
import { envValue, type Env as BaseEnv } from "../../core/environment";

export const WINDOWS_PREFIX_MARKER = ".gentle-shell-bundle";
export const WINDOWS_PREFIX_MARKER_TEXT = "This folder is a Gentle Shell bundled install. Remove it with: gentle-shell self-uninstall\r\n";
export const WINDOWS_FIRST_FOLDER = "gentle-shell";
export const WINDOWS_FALLBACK_FOLDER = ".gentle-shell-bundle";

export const SID = {
  SYSTEM: "S-1-5-18",
  ADMINISTRATORS: "S-1-5-32-544",
  TRUSTED_INSTALLER: "S-1-5-80-956008885-3418522649-1831038044-1853292631-2271478464",
  CREATOR_OWNER: "S-1-3-0",
  CREATOR_GROUP: "S-1-3-1",
  OWNER_RIGHTS: "S-1-3-4",
} as const;

/** FILE_WRITE_DATA|FILE_APPEND_DATA|FILE_WRITE_EA|FILE_DELETE_CHILD|FILE_WRITE_ATTRIBUTES|DELETE|WRITE_DAC|WRITE_OWNER|GENERIC_ALL|GENERIC_WRITE */
export const WRITE_RIGHTS = 0x2 | 0x4 | 0x10 | 0x40 | 0x100 | 0x10000 | 0x40000 | 0x80000 | 0x10000000 | 0x40000000;
/** FileSystemRights.FullControl */
export const FULL_CONTROL = 0x1f01ff;

export interface WindowsAce {
  sid: string;
  allow: boolean;
  /** The access mask, unsigned. */
  rights: number;
  /** Applies only to what is created inside, not to the folder itself. */
  inheritOnly: boolean;
  inherited: boolean;
}

export type WindowsFolderState =
  | { kind: "absent" }
  | { kind: "link" }
  | { kind: "file" }
  /** Exists, but its owner or DACL cannot be read. */
  | { kind: "unreadable" }
  | { kind: "directory"; owner: string; protected: boolean; aces: WindowsAce[] };

export type WindowsMarkerState = { kind: "absent" } | { kind: "file"; text: string } | { kind: "other" };

/** The OS, behind the smallest interface the rule needs. */
export interface WindowsPrivateFolderAdapter {
  /** The SID of the account we run as. */
  currentUserSid(): Promise<string>;
  /** Owner and DACL of a path, without following a link. */
  inspect(path: string): Promise<WindowsFolderState>;
  /** One folder, parents not created; an existing one is not an error. */
  createFolder(path: string): Promise<void>;
  /** Replaces the DACL with a protected one: full control, inheriting to subfolders and files, for exactly these SIDs. */
  setProtectedDacl(path: string, sids: readonly string[]): Promise<void>;
  readMarker(path: string): Promise<WindowsMarkerState>;
  /** Exclusive create: never replaces anything. */
  writeMarker(path: string, text: string): Promise<void>;
}

export interface WindowsPrivateFolder {
  prefix: string;
  /** `<prefix>\.gentle-shell-bundle` */
  marker: string;
  /** %USERPROFILE%\.gentle-shell-bundle was used. */
  fallback: boolean;
  /** Why %LOCALAPPDATA%\gentle-shell was rejected (fallback only). */
  firstRejected?: string;
  /** The folder did not exist before. */
  created: boolean;
}

export class WindowsPrivateFolderError extends Error {}

type Env = Readonly<BaseEnv>;

const DRIVE_ABSOLUTE = /^[A-Za-z]:\\/;
/** A SID in its string form, S-1-... */
export const SID_TEXT = /^S-1-\d+(?:-\d+)+$/;

function absoluteFolder(env: Env, name: string): string {
  const raw = envValue(env, name, "win32");
  const value = raw?.replace(/\//g, "\\");
  if (!value || !DRIVE_ABSOLUTE.test(value) || value.includes("\0")) {
    throw new WindowsPrivateFolderError(
      `%${name}% is not set to an absolute folder (C:\\...), so the Gentle Shell folder cannot be placed. Nothing was changed.`,
    );
  }
  const normal = win32.normalize(value);
  return /^[A-Za-z]:\\$/.test(normal) ? normal : normal.replace(/\\+$/, "");
}

/** Why a folder cannot be trusted, or null. Pure. */
export function untrustedReason(state: WindowsFolderState, trusted: ReadonlySet<string>): string | null {
  if (state.kind === "unreadable") return "has an owner or permissions that cannot be read";
  if (state.kind !== "directory") return null;
  if (!trusted.has(state.owner)) return "is owned by another account";
  const stand = new Set<string>([SID.CREATOR_OWNER, SID.CREATOR_GROUP, SID.OWNER_RIGHTS]);
  for (const ace of state.aces) {
    if (!ace.allow || trusted.has(ace.sid) || stand.has(ace.sid)) continue;
    if ((ace.rights >>> 0) & WRITE_RIGHTS) return "lets another account change it";
  }
  return null;
}

/** The protected DACL we set, read back: exactly our grants, full control, inheriting, nothing inherited. */
export function isOurProtectedDacl(state: WindowsFolderState, grants: readonly string[], trusted: ReadonlySet<string>): boolean {
  if (state.kind !== "directory" || !state.protected || !trusted.has(state.owner)) return false;
  if (state.aces.some((a) => a.inherited || (a.allow && !grants.includes(a.sid)))) return false;
  return grants.every((sid) => state.aces.some((a) => a.allow && a.sid === sid && !a.inheritOnly && ((a.rights >>> 0) & FULL_CONTROL) === FULL_CONTROL));
}

type Attempt = { ok: true; created: boolean } | { ok: false; reason: string };

async function claim(
  adapter: WindowsPrivateFolderAdapter,
  folder: string,
  parent: string,
  parentName: string,
  trusted: ReadonlySet<string>,
  grants: readonly string[],
): Promise<Attempt> {
  const parentState = await adapter.inspect(parent);
  if (parentState.kind === "absent") throw new WindowsPrivateFolderError(`${parentName} (${parent}) does not exist. Nothing was changed.`);
  if (parentState.kind === "link" || parentState.kind === "file") {
    throw new WindowsPrivateFolderError(`${parentName} (${parent}) is not a real folder. Nothing was changed.`);
  }
  const parentReason = untrustedReason(parentState, trusted);
  if (parentReason) return { ok: false, reason: `${parentName} (${parent}) ${parentReason}` };

  let state = await adapter.inspect(folder);
  let created = false;
  if (state.kind === "absent") {
    await adapter.createFolder(folder);
    created = true;
    state = await adapter.inspect(folder);
  }
  if (state.kind === "absent") throw new WindowsPrivateFolderError(`${folder} could not be created.`);
  if (state.kind === "link") throw new WindowsPrivateFolderError(`${folder} is a link; it must be a real folder. Nothing was changed.`);
  if (state.kind === "file") throw new WindowsPrivateFolderError(`${folder} is not a folder. Nothing was changed.`);
  const reason = untrustedReason(state, trusted);
  if (reason) return { ok: false, reason: `${folder} ${reason}` };

  const markerPath = win32.join(folder, WINDOWS_PREFIX_MARKER);
  const marker = await adapter.readMarker(markerPath);
  if (marker.kind === "other") throw new WindowsPrivateFolderError(`${markerPath} is not a regular file. Nothing was changed.`);
  if (marker.kind === "file" && marker.text !== WINDOWS_PREFIX_MARKER_TEXT) {
    throw new WindowsPrivateFolderError(`${folder} holds a ${WINDOWS_PREFIX_MARKER} that Gentle Shell did not write. Nothing was changed.`);
  }

  await adapter.setProtectedDacl(folder, grants);
  const after = await adapter.inspect(folder);
  if (!isOurProtectedDacl(after, grants, trusted)) {
    throw new WindowsPrivateFolderError(`${folder} could not be made private: its permissions did not read back as set.`);
  }
  if (marker.kind === "absent") {
    await adapter.writeMarker(markerPath, WINDOWS_PREFIX_MARKER_TEXT);
    const written = await adapter.readMarker(markerPath);
    if (written.kind !== "file" || written.text !== WINDOWS_PREFIX_MARKER_TEXT) {
      throw new WindowsPrivateFolderError(`${markerPath} did not read back as written.`);
    }
  }
  return { ok: true, created };
}

export async function ensureWindowsPrivateFolder(env: Env, adapter: WindowsPrivateFolderAdapter): Promise<WindowsPrivateFolder> {
  const localAppData = absoluteFolder(env, "LOCALAPPDATA");
  const user = await adapter.currentUserSid();
  if (!SID_TEXT.test(user)) throw new WindowsPrivateFolderError("The current Windows account could not be identified. Nothing was changed.");
  const trusted = new Set<string>([user, SID.SYSTEM, SID.ADMINISTRATORS, SID.TRUSTED_INSTALLER]);
  const grants = [user, SID.SYSTEM, SID.ADMINISTRATORS];

  const first = win32.join(localAppData, WINDOWS_FIRST_FOLDER);
  const a = await claim(adapter, first, localAppData, "%LOCALAPPDATA%", trusted, grants);
  if (a.ok) return { prefix: first, marker: win32.join(first, WINDOWS_PREFIX_MARKER), fallback: false, created: a.created };

  const profile = absoluteFolder(env, "USERPROFILE");
  const second = win32.join(profile, WINDOWS_FALLBACK_FOLDER);
  const b = await claim(adapter, second, profile, "%USERPROFILE%", trusted, grants);
  if (b.ok) return { prefix: second, marker: win32.join(second, WINDOWS_PREFIX_MARKER), fallback: true, firstRejected: a.reason, created: b.created };
  throw new WindowsPrivateFolderError(`No private folder for Gentle Shell: ${a.reason}, and ${b.reason}. Nothing was installed.`);
}
