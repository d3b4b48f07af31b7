/**
 * A full disk (issue 14): the space an install needs (core/space-need.ts) against
 * what is free on the prefix's filesystem, checked before the first download,
 * and any step that meets a full disk ended at once with one sentence naming
 * the folder, what is free and what is needed. What a failed step wrote is
 * removed by the step itself (staging, downloads, the claimed version).
 */
import { dirname } from "../core/native-path";
import type { Layout } from "../core/layout";
import type { Pins, Target } from "../pins/types";
import { diskFull, isDiskFull, notEnoughSpace, spaceNeeded, type SpaceNeed } from "../core/space-need";
import { freeSpace } from "../io/disk";
import { isMarkedRuntime as marked } from "./runtime/marker";
import type { Step } from "./step-plan";

/** What this install still needs: runtimes already installed count for nothing. */
export async function installSpace(layout: Layout, pins: Pins, target: Target, releaseAssets?: Record<string, { size: number }> | null): Promise<SpaceNeed> {
  const go = layout.platform === "win32";
  return spaceNeeded({
    pins,
    target,
    go,
    releaseAssets,
    present: { node: await marked(layout.nodeDir), pnpm: await marked(layout.pnpmDir), go: go && (await marked(dirname(layout.goDir))) },
  });
}

export interface SpaceWatch {
  /** Before the first download: stops the step with both numbers when the known need is more than what is free. */
  check(): Promise<void>;
  /** `step` with a full disk turned into one sentence (the folder, what is free, what is needed). */
  guard(step: Step): Step;
}

export function watchSpace(layout: Layout, pins: Pins, target: Target): SpaceWatch {
  let need: SpaceNeed | null = null;
  let atStart: number | null = null;
  return {
    async check() {
      need = await installSpace(layout, pins, target);
      atStart = await freeSpace(layout.prefix);
      if (atStart !== null && atStart < need.bytes) throw new Error(notEnoughSpace(need, atStart, layout.prefix));
    },
    guard(step) {
      return {
        ...step,
        run: async () => {
          try {
            return await step.run();
          } catch (error) {
            if (!isDiskFull(error)) throw error;
            const free = await freeSpace(layout.prefix);
            throw Object.assign(new Error(diskFull({ where: layout.prefix, step: step.id, free, atStart, need })), { cause: error });
          }
        },
      };
    },
  };
}
