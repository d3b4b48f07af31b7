/**
 * The measured side of `npm run bench`, bundled by bench/run.mjs and run on
 * our Node 24.21.0: acquire the Node runtime (ensureRuntimes, Node only) from
 * the mirror into a fresh prefix, `runs` times, and print each duration (ms)
 * as JSON. The same code the installer runs: verified download (hashed while
 * it streams), extraction of the members we keep, the version checks, the
 * marker and the rename.
 */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { prefixLayout } from "../src/core/layout";
import { ensureRuntimes } from "../src/install/runtime/index";
import { httpClient } from "../src/io/http-client";
import type { Pins } from "../src/pins/types";

interface Args {
  base: string;
  pins: Pins;
  runs: number;
}

async function main() {
  const args = JSON.parse(process.argv[2]!) as Args;
  const times: number[] = [];
  for (let i = 0; i < args.runs; i++) {
    const home = await mkdtemp(join(tmpdir(), "gss-bench-"));
    try {
      const layout = prefixLayout({ home, platform: "linux", pins: args.pins });
      const started = performance.now();
      const r = await ensureRuntimes(
        {
          http: httpClient({ role: "installer", target: "linux-x64", env: process.env }),
          layout,
          pins: args.pins,
          source: { kind: "mirror", base: args.base },
          target: "linux-x64",
          env: { PATH: process.env.PATH, HOME: home },
        },
        { pnpm: false },
      );
      times.push(performance.now() - started);
      if (r.node.status !== "installed") throw new Error(`expected a fresh install, got ${r.node.status}`);
    } finally {
      await rm(home, { recursive: true, force: true });
    }
  }
  process.stdout.write(JSON.stringify(times) + "\n");
}

main().catch((error) => {
  process.stderr.write(`${(error as Error).stack ?? error}\n`);
  process.exit(1);
});
