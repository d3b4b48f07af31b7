/**
 * The active gentle-pi's peer range for Pi, read from its installed
 * package.json in versions/<id>/ (what `gentle-shell update` may pick from;
 * ../core/pi-peer-range.ts reads it).
 */
import { join } from "../core/native-path";
import type { Layout } from "../core/layout";
import { SHELL_PACKAGE } from "../core/package-names";
import { piPeerRange, type PiPeer } from "../core/pi-peer-range";
import { readTextOrNull } from "../io/files";

export async function activePiPeer(layout: Layout, id: string, shell: string): Promise<PiPeer> {
  const text = await readTextOrNull(join(layout.versions, id, "node_modules", SHELL_PACKAGE, "package.json")).catch(() => null);
  return piPeerRange(shell, text);
}
