#!/usr/bin/env node
/**
 * The test suite's wall time in bench/results.md, from the record a full
 * `GSS_RECORD_SUITE=1 npm test` wrote (bench/suite-run.json, by
 * test/support/wall-time-reporter.ts). `npm run bench` includes this section;
 * `node bench/suite.mjs` rewrites only this section of results.md, so a new
 * suite timing needs no 20-minute bench.
 */
import { readFile, writeFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const benchDir = dirname(fileURLToPath(import.meta.url));
const HEADING = "## The test suite";

/** The section's lines; a missing record says so (no figure is made up). */
export async function suiteSection() {
  const text = await readFile(join(benchDir, "suite-run.json"), "utf8").catch(() => null);
  if (text === null) return [HEADING, "", "No full run recorded yet: run `GSS_RECORD_SUITE=1 npm test`, then `node bench/suite.mjs`.", ""];
  const run = JSON.parse(text);
  const minutes = (run.wallSeconds / 60).toFixed(1);
  return [
    HEADING,
    "",
    `\`npm test\`'s vitest run (the unit, integration and e2e projects, fixtures included), recorded at ${run.commit} on ${run.date.slice(0, 10)} with \`GSS_RECORD_SUITE=1\`.`,
    "",
    "| what | figure |",
    "|---|---|",
    `| wall time | ${run.wallSeconds} s (${minutes} min) |`,
    `| test files | ${run.files} |`,
    `| tests | ${run.tests.passed} passed, ${run.tests.failed} failed, ${run.tests.skipped} skipped |`,
    `| workers (files at once) | ${run.workers ?? "vitest's default"} |`,
    `| machine | ${run.machine}; load average (1 min) ${run.load.before} before, ${run.load.after} after |`,
    "",
    `The ${run.slowest.length} slowest files, each from its start to its end (tests inside a file may run at once):`,
    "",
    ...run.slowest.map((s) => `- ${s.seconds} s: \`${s.file}\``),
    "",
  ];
}

async function main() {
  const path = join(benchDir, "results.md");
  const current = await readFile(path, "utf8");
  const start = current.indexOf(`${HEADING}\n`);
  const section = (await suiteSection()).join("\n");
  let next;
  if (start === -1) next = `${current.trimEnd()}\n\n${section}`;
  else {
    const end = current.indexOf("\n## ", start + HEADING.length);
    next = current.slice(0, start) + section + (end === -1 ? "" : current.slice(end));
  }
  await writeFile(path, next);
  process.stdout.write(`${section}\n`);
}

if (process.argv[1] === fileURLToPath(import.meta.url)) await main();
