/**
 * Waiting for the startup update offer in a real terminal (the
 * startup-offer tests). The launcher gives the registry 1.5 s
 * (OFFER_TIMEOUT_MS), and on a machine too loaded for that it rightly opens
 * Pi with no offer: that is said at once, not after the file's whole outer
 * limit.
 */
import type { Terminal } from "./tmux";

export interface OfferScreens {
  /** The screen shows the offer. */
  offered: (screen: string) => boolean;
  /** The screen shows Pi's editor without the offer. */
  piOpen: (screen: string) => boolean;
}

export async function offerOn(t: Terminal, what: string, screens: OfferScreens): Promise<string> {
  const screen = await t.waitFor((s) => screens.offered(s) || screens.piOpen(s), `${what} (or Pi's editor without it)`);
  if (!screens.offered(screen))
    throw new Error(`Pi opened without ${what}: the registry's answer missed the offer's 1.5 s budget; the screen shows:\n${screen}`);
  return screen;
}
