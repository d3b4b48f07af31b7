// A temp home holding a bundled prefix (bin and a launcher) for the io tests
// of the PATH entry (spec: "PATH"), and the helpers they share. Importing it
// registers the beforeEach/afterEach that make and remove the temp home for
// the importing test file; root, home and layout are live bindings.
import { afterEach, beforeEach } from "vitest";
import * as fs from "node:fs";
import { tmpdir } from "node:os";
import { join } from "pathe";
import { prefixLayout, type Layout, type Platform } from "../../../src/core/layout";
import { buildPins } from "../../../src/pins";
import { pathEntryPlan, type PathEntryPlan } from "../../../src/path/entry-plan";
import { collectPathFacts } from "../../../src/path/probe";
import type { RegistryAdapter } from "../../../src/path/windows-registry";
import { posixLine } from "../../../src/path/shells";
import type { UserPathValue } from "../../../src/path/user-path";

export let root: string;
export let home: string;
export let layout: Layout;

export function makeLayout(h: string, platform: Platform = "linux", windowsPrefix?: string): Layout {
  return prefixLayout({ home: h, platform, pins: buildPins(), windowsPrefix });
}

beforeEach(() => {
  root = fs.realpathSync(fs.mkdtempSync(join(tmpdir(), "gs-path-")));
  home = join(root, "home");
  fs.mkdirSync(home);
  layout = makeLayout(home);
  fs.mkdirSync(layout.bin, { recursive: true });
  fs.writeFileSync(layout.launcher, "#!/bin/sh\necho gentle-shell 4.1.0\n", { mode: 0o755 });
});
afterEach(() => {
  fs.rmSync(root, { recursive: true, force: true });
});

export const env = (shell: string, more: Record<string, string> = {}) => ({ HOME: home, PATH: "/usr/bin:/bin", SHELL: shell, ...more });
export const read = (p: string) => fs.readFileSync(p);
export const LINE = () => posixLine(layout.bin);

export async function plan(e: Record<string, string>, platform: Platform = "linux"): Promise<PathEntryPlan> {
  return pathEntryPlan(await collectPathFacts(layout, e, { platform }));
}

// A fake HKCU\Environment: the raw value and its type, and the broadcasts made.
export function fakeRegistry(initial: UserPathValue | null) {
  const state = { value: initial, writes: [] as UserPathValue[], broadcasts: 0 };
  const adapter: RegistryAdapter = {
    readUserPath: async () => (state.value ? { ...state.value } : null),
    writeUserPath: async (v) => {
      state.writes.push(v);
      state.value = { ...v };
    },
    broadcastEnvironmentChange: async () => {
      state.broadcasts++;
    },
  };
  return { state, adapter };
}
