/**
 * The Pi versions the active gentle-pi allows (spec: "Launcher in a bundled
 * install", Pi updates (S5)): its package.json's peerDependencies entry for
 * Pi, a semver range. Pure. An update picks the newest stable Pi inside it
 * (./pi-update.ts newestStablePi); a gentle-pi that declares no such peer
 * allows any Pi. Ranges are read by semver, the reading npm and pnpm give
 * them, rather than by a partial one of ours.
 */
import satisfies from "semver/functions/satisfies";
import validRange from "semver/ranges/valid";
import { PI_PACKAGE } from "./package-names";

export interface PiPeer {
  /** The active gentle-pi's version, for the sentences. */
  shell: string;
  range: string;
}

/** The peer range for Pi in the active gentle-pi's package.json text (null: it could not be read). */
export function piPeerRange(shell: string, packageJson: string | null): PiPeer {
  const unknown = `the Pi versions the active gentle-pi ${shell} allows are unknown`;
  if (packageJson === null) throw new Error(`${unknown}: its package.json could not be read; nothing was changed`);
  let manifest: unknown;
  try {
    manifest = JSON.parse(packageJson);
  } catch {
    throw new Error(`${unknown}: its package.json is not valid JSON; nothing was changed`);
  }
  const peers = manifest && typeof manifest === "object" ? (manifest as { peerDependencies?: unknown }).peerDependencies : undefined;
  const range = peers && typeof peers === "object" ? (peers as Record<string, unknown>)[PI_PACKAGE] : undefined;
  if (range === undefined) return { shell, range: "*" };
  if (typeof range !== "string" || validRange(range) === null) {
    throw new Error(`${unknown}: its peer range for Pi, ${JSON.stringify(range)}, is not a semver range; nothing was changed`);
  }
  return { shell, range };
}

/** Whether the exact stable `version` is inside the peer range. */
export function peerAllows(peer: PiPeer, version: string): boolean {
  return satisfies(version, peer.range);
}
