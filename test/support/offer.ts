/**
 * Waiting for the startup update offer in a real terminal (the
 * startup-offer tests). The spec gives the registry 1.5 s; the test build
 * these terminals run compiles in 30 s (build/build.mjs), so that load
 * cannot make Pi open without the offer, and the 1.5 s is held in-process
 * (test/integration/offer-budget.test.ts). Pi opening without the offer is
 * said at once, not after the file's whole outer limit.
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
    throw new Error(
      `Pi opened without ${what}: the registry did not answer within the test build's 30 s budget, or the offer was not made; the screen shows:\n${screen}`,
    );
  return screen;
}
