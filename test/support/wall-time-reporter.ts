/**
 * A vitest reporter that ends every run with the suite's wall time and its
 * five slowest files, each from the moment the file started to the moment it
 * ended (tests inside a file may run at once, so their sum says less). The
 * verbose reporter still prints every test; this adds the lines .ci/run and
 * a person read to see where the time goes.
 */
import { relative } from "node:path";
import type { Reporter, TestModule } from "vitest/node";

export default class WallTimeReporter implements Reporter {
  private started = Date.now();
  private readonly moduleStart = new Map<string, number>();
  private readonly moduleWall = new Map<string, number>();

  onTestRunStart(): void {
    this.started = Date.now();
  }

  onTestModuleStart(module: TestModule): void {
    this.moduleStart.set(module.moduleId, Date.now());
  }

  onTestModuleEnd(module: TestModule): void {
    const start = this.moduleStart.get(module.moduleId);
    if (start !== undefined) this.moduleWall.set(module.moduleId, Date.now() - start);
  }

  onTestRunEnd(): void {
    const wall = (Date.now() - this.started) / 1000;
    const slowest = [...this.moduleWall].sort((a, b) => b[1] - a[1]).slice(0, 5);
    const lines = [`suite wall time: ${wall.toFixed(0)} s (${(wall / 60).toFixed(1)} min)`, "slowest files, start to end:"];
    for (const [id, ms] of slowest) lines.push(`  ${(ms / 1000).toFixed(0).padStart(5)} s  ${relative(process.cwd(), id)}`);
    process.stdout.write(`\n${lines.join("\n")}\n`);
  }
}
