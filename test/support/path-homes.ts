/**
 * The homes the PATH tests in real shells share (test/integration/path-shells*.test.ts):
 * a home with a fake launcher at <prefix>/bin/gentle-shell, a new shell
 * started as a terminal starts it, and the bytes of every startup file
 * either platform's rules could touch, compared before and after.
 */
import * as fs from "node:fs";
import { spawnSync } from "node:child_process";
import { join } from "pathe";
import { expect } from "vitest";
import { prefixLayout, type Layout, type Platform } from "../../src/core/layout";
import { buildPins } from "../../src/pins";
import { profileFiles } from "../../src/path/shells";

export const VERSION = "gentle-shell 4.1.0";

/** A temp home with a fake launcher at <prefix>/bin/gentle-shell. */
export function makeHome(root: string, name: string, platform: Platform = "linux"): Layout {
  const home = join(root, name);
  fs.mkdirSync(home, { recursive: true });
  const layout = prefixLayout({ home, platform, pins: buildPins() });
  fs.mkdirSync(layout.bin, { recursive: true });
  fs.writeFileSync(layout.launcher, `#!/bin/sh\necho "${VERSION}"\n`, { mode: 0o755 });
  return layout;
}

/** A new shell as a terminal starts it: a clean environment, a UTF-8 locale, no input. */
export function terminal(argv: string[], home: string, extra: Record<string, string> = {}) {
  const r = spawnSync(argv[0]!, [...argv.slice(1), "gentle-shell --version"], {
    cwd: home,
    env: { HOME: home, PATH: "/usr/bin:/bin", TERM: "dumb", LANG: "C.UTF-8", ...extra },
    input: "",
    encoding: "utf8",
    timeout: 20_000,
  });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

/** The bytes of every startup file either platform's rules could touch, plus extra paths. */
export function snapshot(home: string, env: Record<string, string>, extra: string[] = []): Map<string, Buffer | null> {
  const paths = new Set<string>(extra);
  for (const p of ["linux", "darwin"] as const) for (const f of profileFiles(home, env, p)) paths.add(f.path);
  const out = new Map<string, Buffer | null>();
  for (const p of paths) {
    try {
      out.set(p, fs.readFileSync(p));
    } catch {
      out.set(p, null);
    }
  }
  return out;
}

export function expectSame(before: Map<string, Buffer | null>, after: Map<string, Buffer | null>) {
  for (const [p, bytes] of before) {
    const now = after.get(p);
    expect(now === null || now === undefined ? null : now.toString("latin1"), p).toBe(bytes === null ? null : bytes.toString("latin1"));
  }
}
