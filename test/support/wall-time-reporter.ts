/**
 * A vitest reporter that ends every run with the suite's wall time and its
 * ten slowest files, each from the moment the file started to the moment it
 * ended (tests inside a file may run at once, so their sum says less). The
 * verbose reporter still prints every test; this adds the lines .ci/run and
 * a person read to see where the time goes.
 */
import { execFileSync } from "node:child_process";
import { writeFileSync } from "node:fs";
import { cpus, loadavg } from "node:os";
import { join, relative } from "node:path";
import type { Reporter, TestModule, Vitest } from "vitest/node";

/**
 * With GSS_RECORD_SUITE=1, a run also writes bench/suite-run.json (what
 * `node bench/suite.mjs` and `npm run bench` show in bench/results.md): take
 * it from a full `npm test` on a quiet machine.
 */
const RECORD = join(import.meta.dirname, "..", "..", "bench", "suite-run.json");

export default class WallTimeReporter implements Reporter {
  private started = Date.now();
  private loadBefore = loadavg()[0];
  private workers: number | string | undefined;
  private readonly moduleStart = new Map<string, number>();
  private readonly moduleWall = new Map<string, number>();

  onInit(vitest: Vitest): void {
    this.workers = vitest.config.maxWorkers;
  }

  onTestRunStart(): void {
    this.started = Date.now();
    this.loadBefore = loadavg()[0];
  }

  onTestModuleStart(module: TestModule): void {
    this.moduleStart.set(module.moduleId, Date.now());
  }

  onTestModuleEnd(module: TestModule): void {
    const start = this.moduleStart.get(module.moduleId);
    if (start !== undefined) this.moduleWall.set(module.moduleId, Date.now() - start);
  }

  onTestRunEnd(modules: ReadonlyArray<TestModule>): void {
    const wall = (Date.now() - this.started) / 1000;
    const slowest = [...this.moduleWall].sort((a, b) => b[1] - a[1]).slice(0, 10);
    const lines = [`suite wall time: ${wall.toFixed(0)} s (${(wall / 60).toFixed(1)} min)`, "slowest files, start to end:"];
    for (const [id, ms] of slowest) lines.push(`  ${(ms / 1000).toFixed(0).padStart(5)} s  ${relative(process.cwd(), id)}`);
    process.stdout.write(`\n${lines.join("\n")}\n`);
    if (process.env.GSS_RECORD_SUITE === "1") this.record(modules, wall, slowest);
  }

  private record(modules: ReadonlyArray<TestModule>, wall: number, slowest: [string, number][]): void {
    const tests = { passed: 0, failed: 0, skipped: 0 };
    for (const module of modules) {
      for (const test of module.children.allTests()) {
        const state = test.result().state;
        if (state === "passed") tests.passed++;
        else if (state === "failed") tests.failed++;
        else tests.skipped++;
      }
    }
    let commit = "unknown";
    try {
      commit = execFileSync("git", ["rev-parse", "--short", "HEAD"], { encoding: "utf8" }).trim();
    } catch {
      // Not a git checkout.
    }
    const doc = {
      date: new Date().toISOString(),
      commit,
      wallSeconds: Math.round(wall),
      files: modules.length,
      tests,
      workers: this.workers ?? null,
      machine: `${cpus().length} × ${cpus()[0]?.model ?? "cpu"}`,
      load: { before: Number(this.loadBefore.toFixed(2)), after: Number(loadavg()[0].toFixed(2)) },
      slowest: slowest.map(([id, ms]) => ({ file: relative(process.cwd(), id), seconds: Math.round(ms / 1000) })),
    };
    writeFileSync(RECORD, `${JSON.stringify(doc, null, 2)}\n`);
  }
}
