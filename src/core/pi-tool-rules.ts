/**
 * Pi's own tools (spec: "Launcher in a bundled install", Pi's own tools).
 * Pi 1.6.0 (dist/utils/tools-manager.js) looks for fd and rg in
 * <agent home>/bin first (`fd`, `rg`, with `.exe` on Windows; existsSync
 * only), then on PATH (fd, fdfind, rg). Missing both, it downloads the
 * *latest* release from GitHub into that folder with no checksum, or, with
 * PI_OFFLINE, warns "fd not found. Offline mode enabled, skipping download."
 *
 * For a home Gentle Shell owns, the launcher puts the pinned, verified tools
 * there first, only when nothing stands at that path, and writes a marker
 * beside each (`.gentle-shell-fd`, `.gentle-shell-rg`) recording the bytes it
 * placed. A tool is ours only while its file still has those bytes: a file
 * the user or Pi put there, or replaced ours with, is never touched. Pi's
 * PATH stays the user's. Pure: no file system, no process.
 */
import type { Platform } from "./layout";
import type { Env } from "./environment";
import type { Pins, ToolPin } from "../pins/types";

export type PiToolName = "fd" | "ripgrep";

export interface PiTool {
  name: PiToolName;
  /** The executable's base name, as Pi looks for it (binaryName in tools-manager.js). */
  exe: "fd" | "rg";
}

export const PI_TOOLS: readonly PiTool[] = [
  { name: "fd", exe: "fd" },
  { name: "ripgrep", exe: "rg" },
];

export function toolPin(pins: Pins, tool: PiTool): ToolPin {
  return pins.tools[tool.name];
}

/** The file name in <agent home>/bin (and in the archive): `fd`, `rg.exe`. */
export function toolFileName(tool: PiTool, platform: Platform): string {
  return platform === "win32" ? `${tool.exe}.exe` : tool.exe;
}

/** The marker beside a tool we placed. */
export function toolMarkerName(tool: PiTool): string {
  return `.gentle-shell-${tool.exe}`;
}

export interface ToolMarker {
  tool: PiToolName;
  version: string;
  /** sha256 of the file we placed. */
  sha256: string;
}

export function toolMarkerText(marker: ToolMarker): string {
  return `${JSON.stringify({ schema: 1, tool: marker.tool, version: marker.version, sha256: marker.sha256 })}\n`;
}

/** A marker of ours for `tool`, or null for anything else (malformed, another tool's). */
export function parseToolMarker(text: string | null, tool: PiTool): ToolMarker | null {
  if (text === null) return null;
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return null;
  }
  const m = value as Record<string, unknown> | null;
  if (typeof m !== "object" || m === null || m.schema !== 1 || m.tool !== tool.name) return null;
  if (typeof m.version !== "string" || typeof m.sha256 !== "string" || !/^[0-9a-f]{64}$/.test(m.sha256)) return null;
  return { tool: tool.name, version: m.version, sha256: m.sha256 };
}

/** Whether `--version` output is this tool at this version: `fd 10.3.0`; `ripgrep 15.1.0` (and more lines). */
export function versionOutputMatches(tool: PiTool, version: string, stdout: string): boolean {
  const first = stdout.split(/\r?\n/)[0]?.trim() ?? "";
  const words = first.split(/\s+/);
  return words[0] === tool.name && words[1] === version;
}

/**
 * The one member taken from a release archive: `<archive stem>/<exe>` (how
 * both projects pack their releases) or `<exe>` at the top. Everything else
 * (README, licences, completions, man pages) is skipped.
 */
export function toolMember(tool: PiTool, archivePath: string, platform: Platform, member: string): boolean {
  const file = toolFileName(tool, platform);
  const stem = (archivePath.split("/").pop() ?? "").replace(/\.(tar\.gz|zip)$/, "");
  return member === file || member === `${stem}/${file}`;
}

/** What stands at <agent home>/bin/<exe>; "ours-outdated": ours, of another version than this build pins. */
export type ToolPresence = "absent" | "ours" | "ours-outdated" | "other";

export type ToolDecision =
  | { action: "provision"; fetch: boolean; replace?: true }
  | { action: "keep"; why: "ours" | "not-ours" }
  | { action: "skip"; why: "foreign-home" | "unpinned" | "offline" };

export interface ToolFacts {
  /** The agent home is Gentle Shell's own (agentHomeIsOurs). */
  homeOurs: boolean;
  /** This target's archive has a pinned sha256. */
  pinned: boolean;
  presence: ToolPresence;
  /** A verified copy is already under runtime/ (reused, no download). */
  inRuntime: boolean;
  /** The source may be asked now: not offline (PI_OFFLINE, --offline), or a folder source (an offline bundle). */
  mayFetch: boolean;
}

/**
 * Provision only into our own home, only when nothing is there, only a
 * pinned tool; a verified copy under runtime/ needs no source at all.
 */
export function piToolDecision(facts: ToolFacts): ToolDecision {
  if (!facts.homeOurs) return { action: "skip", why: "foreign-home" };
  if (facts.presence === "ours") return { action: "keep", why: "ours" };
  if (facts.presence === "other") return { action: "keep", why: "not-ours" };
  // Ours, but another release pinned it: replaced only by a pinned one that can be had now.
  const outdated = facts.presence === "ours-outdated";
  if (!facts.pinned) return outdated ? { action: "keep", why: "ours" } : { action: "skip", why: "unpinned" };
  const replace = outdated ? { replace: true as const } : {};
  if (facts.inRuntime) return { action: "provision", fetch: false, ...replace };
  if (!facts.mayFetch) return outdated ? { action: "keep", why: "ours" } : { action: "skip", why: "offline" };
  return { action: "provision", fetch: true, ...replace };
}

/** An environment for `<tool> --version` from staging: PATH and the platform's basics, nothing else of the user's. */
export function toolCheckEnvironment(env: Env): Env {
  const out: Env = {};
  for (const key of ["PATH", "Path", "SystemRoot", "TEMP", "TMP", "HOME", "USERPROFILE"]) {
    const value = env[key];
    if (value !== undefined) out[key] = value;
  }
  return out;
}
