/**
 * The disk space an install needs (issue 14, A full disk). Pure: from the
 * pins and, once it is known, the release's signed manifest. Only sizes the
 * pins or the manifest record count; a pin without one is named as unknown,
 * never guessed. A runtime archive counts twice: the archive itself, and at
 * least as much again for what it unpacks to (a gzip or zip stream never
 * unpacks to fewer bytes than it holds, but for a few bytes of its headers),
 * both on disk at once while it is unpacked. The release's packages (pnpm's
 * store and the version's node_modules) are never known before pnpm runs.
 */
import type { Pins, Target } from "../pins/types";

export interface SpacePart {
  name: string;
  bytes: number;
}

export interface SpaceNeed {
  /** What the known parts need at the least, in bytes. */
  bytes: number;
  parts: SpacePart[];
  /** What will also take space but has no recorded size. */
  unknown: string[];
}

export interface SpaceInput {
  pins: Pins;
  target: Target;
  /** Runtimes already installed (reused, so they need nothing more). */
  present?: { node?: boolean; pnpm?: boolean; go?: boolean };
  /** Windows installs also take the pinned Go. */
  go?: boolean;
  /** The release's asset sizes, once its signed manifest is verified. */
  releaseAssets?: Record<string, { size: number }> | null;
}

export const RELEASE_PACKAGES = "the release's packages";

export function spaceNeeded(input: SpaceInput): SpaceNeed {
  const { pins, target } = input;
  const present = input.present ?? {};
  const parts: SpacePart[] = [];
  const unknown: string[] = [];
  const archive = (name: string, size: number | null | undefined) => {
    if (typeof size === "number" && size >= 0) parts.push({ name, bytes: 2 * size });
    else unknown.push(name);
  };
  if (!present.node) archive(`Node ${pins.node.version}`, pins.node.archives[target]?.size);
  if (!present.pnpm) archive(`pnpm ${pins.pnpm.version}`, pins.pnpm.file.size);
  if (input.go && !present.go) archive(`Go ${pins.go.version}`, pins.go.archives[target]?.size);
  if (input.releaseAssets) {
    const bytes = Object.values(input.releaseAssets).reduce((sum, a) => sum + a.size, 0);
    parts.push({ name: "the release's assets", bytes });
  } else {
    unknown.push("the release's assets");
  }
  unknown.push(RELEASE_PACKAGES);
  return { bytes: parts.reduce((sum, p) => sum + p.bytes, 0), parts, unknown };
}

/** Bytes as the user reads them: whole MB (10^6) above 10 MB, one decimal below. */
export function showBytes(bytes: number): string {
  const mb = bytes / 1_000_000;
  return mb >= 10 ? `${Math.round(mb)} MB` : `${mb.toFixed(1)} MB`;
}

function listed(names: string[]): string {
  return names.length < 2 ? names.join("") : `${names.slice(0, -1).join(", ")} and ${names[names.length - 1]}`;
}

/** The plan's line: what is known to be needed, what is not known, and what is free. */
export function spaceLine(need: SpaceNeed, free: number | null, where: string): string {
  const freeText = free === null ? "the free space there could not be read" : `${showBytes(free)} free there`;
  if (!need.parts.length) return `Space: not known in advance (no size is recorded for ${listed(need.unknown)}), on the disk of ${where}; ${freeText}.`;
  const more = need.unknown.length ? `, plus ${listed(need.unknown)}, whose size is not known in advance` : "";
  return `Space: at least ${showBytes(need.bytes)} (${listed(need.parts.map((p) => p.name))})${more}, on the disk of ${where}; ${freeText}.`;
}

/** The one sentence for an install stopped before its first download. */
export function notEnoughSpace(need: SpaceNeed, free: number, where: string): string {
  const parts = need.parts.map((p) => `${p.name} ${showBytes(p.bytes)}`).join(", ");
  return `There is not enough space for Gentle Shell in ${where}: ${showBytes(free)} free, at least ${showBytes(need.bytes)} needed (${parts}); nothing was downloaded, so free some space and run the installer again.`;
}

/**
 * The one sentence for a write that met a full disk: the folder, what is free
 * once the step removed what it left unfinished, and what the install needs at the
 * least: more than was free when it began (it ran out having had that much),
 * or else its known parts.
 */
export function diskFull(input: { where: string; step: string; free: number | null; atStart: number | null; need: SpaceNeed | null }): string {
  const known = input.need?.bytes ?? 0;
  const atStart = input.atStart ?? 0;
  const needed =
    atStart > 0 && atStart >= known
      ? `more than the ${showBytes(atStart)} that were free when it began`
      : known > 0
        ? `at least ${showBytes(known)}`
        : "more than was free";
  const free = input.free === null ? "" : `, ${showBytes(input.free)} is free now`;
  return `The disk holding ${input.where} is full: the ${input.step} step stopped at once and removed what it left unfinished${free}, and the install needs ${needed}, so free some space and run the installer again.`;
}

/** Is this a write that met a full disk (ENOSPC, or a quota: EDQUOT), here or in what caused it? */
export function isDiskFull(error: unknown): boolean {
  for (let e = error, depth = 0; e && depth < 5; e = (e as { cause?: unknown }).cause, depth++) {
    const code = (e as { code?: unknown }).code;
    if (code === "ENOSPC" || code === "EDQUOT") return true;
    if (e instanceof Error && /\bENOSPC\b|no space left on device/i.test(e.message)) return true;
  }
  return false;
}
