/**
 * The acquisition tests' runtime context (integration/acquisition-*.test.ts):
 * `context()` is a scratch HOME's linux prefix layout with the fixture pins
 * (or others), the artifact mirror through a scope of its own (or another
 * base) and fast retries; `runtimeEntries(layout)` lists runtime/.
 */
import { promises as fs } from "node:fs";
import { prefixLayout, type Layout } from "../../src/core/layout";
import type { Pins } from "../../src/pins/types";
import type { RuntimeContext } from "../../src/install/runtime/recipe";
import { fixtures } from "./context";
import { homeEnv } from "./fixtures";
import { testHost } from "./host";
import { mirrorClient } from "./mirror";
import { scratchHome } from "./home";

// The mirror gzips the whole archive before it answers: the stall timeout leaves room for that.
export const fast = { backoffMs: 5, stallMs: 20_000 };

export async function context(options: { pins?: Pins; base?: string; home?: string } = {}): Promise<RuntimeContext & { layout: Layout }> {
  const f = fixtures();
  const home = options.home ?? (await scratchHome({ scratch: "gss-acq-" }));
  const pins = options.pins ?? f.pins;
  const base = options.base ?? (await mirrorClient(f.mirrorUrl).scope()).url;
  return {
    http: testHost({ env: homeEnv(home) }).http,
    layout: prefixLayout({ home, platform: "linux", pins }),
    pins,
    source: { kind: "mirror", base },
    target: "linux-x64",
    env: homeEnv(home),
    fetch: { download: fast },
  };
}

/** Everything in runtime/, with dot entries (staging folders, downloads). */
export async function runtimeEntries(layout: Layout): Promise<string[]> {
  return (await fs.readdir(layout.runtime).catch(() => [] as string[])).sort();
}
