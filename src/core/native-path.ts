/**
 * Paths of this machine's file system (issue 39, defect 4): pathe's functions
 * with POSIX rules for POSIX paths. pathe spells every path with `/`, turning
 * each `\` into `/`, which suits Windows, where both name the same folder.
 * On POSIX, though, `\` is an ordinary filename character: a HOME whose last
 * part is `hb\x` became the sibling folder hb/x, so the prefix landed there
 * and ~/.npmrc was never read. So:
 *   - on a Windows machine, and for a path of Windows' shape on any machine
 *     (a drive, C:\ or C:/, or a UNC share: the Windows layouts that tests
 *     build on Linux), pathe's rules, `/` as today;
 *   - for every other path, node:path's POSIX rules: only `/` separates, and
 *     a backslash, a newline or any other byte stays in its name.
 * A POSIX path never starts with a drive, so the shape decides alone there.
 * The machine is this process's platform, read once, as node:path's own
 * default is.
 */
import { posix } from "node:path";
import * as pathe from "pathe";

const windowsMachine = process.platform === "win32";

/** A Windows path: a drive (C:\, C:/, C:) or a UNC share (\\server\share, //server/share). */
export function windowsShaped(path: string): boolean {
  return /^[A-Za-z]:([\\/]|$)/.test(path) || /^[\\/]{2}[^\\/]/.test(path);
}

function rules(...paths: string[]): typeof posix {
  return windowsMachine || paths.some(windowsShaped) ? pathe : posix;
}

export function join(...parts: string[]): string {
  return rules(parts[0] ?? "").join(...parts);
}

export function dirname(path: string): string {
  return rules(path).dirname(path);
}

export function basename(path: string, suffix?: string): string {
  return rules(path).basename(path, suffix);
}

export function normalize(path: string): string {
  return rules(path).normalize(path);
}

export function isAbsolute(path: string): boolean {
  return rules(path).isAbsolute(path);
}

export function resolve(...parts: string[]): string {
  return rules(...parts).resolve(...parts);
}

export function relative(from: string, to: string): string {
  return rules(from, to).relative(from, to);
}
