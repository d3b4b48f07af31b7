/**
 * Engram startup safety, the environment of the `engram serve` Shell starts
 * (spec: "Engram startup safety", Starting the shared server). Pure: the
 * user's environment minus ENGRAM_* and the GitHub tokens, and the session
 * scratch rules for TMPDIR/TMP/TEMP on POSIX and Windows.
 */
import type { Env } from "../../core/environment";
import type { Platform } from "../../core/layout";

const TEMP_NAMES = ["TMPDIR", "TMP", "TEMP"] as const;

/** A session scratch folder's name: gp or ga followed by exactly six alphanumerics. */
export function isScratchName(name: string, platform: Platform): boolean {
  return (platform === "win32" ? /^g[pa][A-Za-z0-9]{6}$/i : /^g[pa][A-Za-z0-9]{6}$/).test(name);
}

/** Windows: the root of an absolute path (C:\ or \\server\share), else null. */
function windowsRoot(path: string): string | null {
  const drive = /^[A-Za-z]:[\\/]/.exec(path);
  if (drive) return drive[0];
  const unc = /^[\\/]{2}[^\\/]+[\\/]+[^\\/]+/.exec(path);
  return unc ? unc[0] : null;
}

/**
 * Windows: the original absolute ancestor outside the trailing run of scratch
 * components, as written (its own separators), or null for a path that is not
 * absolute.
 */
export function windowsStableAncestor(path: string): string | null {
  const root = windowsRoot(path);
  if (root === null) return null;
  let rest = path.slice(root.length);
  for (;;) {
    const trimmed = rest.replace(/[\\/]+$/, "");
    const cut = Math.max(trimmed.lastIndexOf("\\"), trimmed.lastIndexOf("/"));
    const last = trimmed.slice(cut + 1);
    if (trimmed === "" || !isScratchName(last, "win32")) {
      rest = trimmed;
      break;
    }
    rest = cut < 0 ? "" : trimmed.slice(0, cut);
  }
  return rest === "" ? root : root + rest;
}

/** The last path component; on Windows after \\, / or a drive's colon (C:gp123456). */
function finalComponent(path: string, platform: Platform): string {
  if (platform !== "win32") return path.slice(path.lastIndexOf("/") + 1);
  const drive = /^[A-Za-z]:/.test(path) ? 1 : -1;
  return path.slice(Math.max(path.lastIndexOf("/"), path.lastIndexOf("\\"), drive) + 1);
}

export type ServeEnvironment = { ok: true; env: Env } | { ok: false; reason: string };

/**
 * The environment of the `engram serve` Shell starts: the user's, minus every
 * ENGRAM_* setting and GH_TOKEN/GITHUB_TOKEN, plus ENGRAM_NO_UPDATE_CHECK=1.
 * TMPDIR/TMP/TEMP naming a session scratch folder are dropped on POSIX; on
 * Windows they are replaced by their stable absolute ancestor (and TEMP is
 * added when absent), and a relative scratch path refuses the start.
 */
export function engramServeEnvironment(env: Env, platform: Platform): ServeEnvironment {
  const out: Env = {};
  for (const [k, v] of Object.entries(env)) {
    if (v === undefined) continue;
    if (/^ENGRAM_/i.test(k) || /^(GH_TOKEN|GITHUB_TOKEN)$/i.test(k)) continue;
    out[k] = v;
  }
  let stable: string | null = null;
  let replaced = false;
  for (const name of platform === "win32" ? (["TMP", "TMPDIR", "TEMP"] as const) : TEMP_NAMES) {
    const keys = Object.keys(out).filter((k) => (platform === "win32" ? k.toUpperCase() === name : k === name));
    for (const key of keys) {
      const value = out[key]!;
      const trimmed = value.replace(platform === "win32" ? /[\\/]+$/ : /\/+$/, "");
      const last = finalComponent(trimmed, platform);
      if (!isScratchName(last, platform)) continue;
      if (platform !== "win32") {
        delete out[key];
        continue;
      }
      const ancestor = windowsStableAncestor(value);
      if (ancestor === null) {
        return { ok: false, reason: `${name} names a relative session scratch folder, so no stable temporary folder could be chosen` };
      }
      out[key] = ancestor;
      replaced = true;
      stable ??= ancestor;
    }
  }
  if (platform === "win32" && replaced && !Object.keys(out).some((k) => k.toUpperCase() === "TEMP")) out.TEMP = stable!;
  out.ENGRAM_NO_UPDATE_CHECK = "1";
  return { ok: true, env: out };
}
