/**
 * vitest setup file of the integration and e2e projects: the file's one outer limit
 * (./limits.ts). A file still running at FILE_LIMIT_MS has its worker end
 * with one line saying so; every wait inside it waits on a child's exit or
 * output, not on a clock.
 */
import { afterAll, beforeAll } from "vitest";
import { FILE_LIMIT_MS } from "./limits";

let timer: NodeJS.Timeout | undefined;

// biome-ignore lint/correctness/noEmptyPattern: vitest reads the first parameter as fixtures and passes the suite second.
beforeAll(({}, suite) => {
  const file = (suite as { file?: { name?: string } }).file?.name ?? "a test file";
  timer = setTimeout(() => {
    process.stderr.write(`${file}: still running after its outer limit of ${FILE_LIMIT_MS / 60_000} minutes; ended.\n`);
    process.exit(1);
  }, FILE_LIMIT_MS);
  timer.unref();
});

afterAll(() => {
  clearTimeout(timer);
});
