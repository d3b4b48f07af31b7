#!/usr/bin/env node
/**
 * One replay's counts from vitest's JSON report, and each probe's reason with
 * how many tests it skipped (test/support/capabilities.ts writes them to
 * GSS_SKIP_LOG), then every failed test by name. Used by test/runners/run.sh
 * and test/wine/lane.sh.
 *
 *   node test/runners/summary.mjs <label> <report.json> [skips.jsonl]
 *
 * Exits 1 when the report is missing or holds no test: a replay that ran
 * nothing has not passed.
 */
import { existsSync, readFileSync } from "node:fs";

const [label, reportFile, skipsFile] = process.argv.slice(2);
if (!label || !reportFile) {
  console.error("usage: node test/runners/summary.mjs <label> <report.json> [skips.jsonl]");
  process.exit(2);
}
if (!existsSync(reportFile)) {
  console.error(`${label}: no report (${reportFile}): the run ended before vitest wrote it`);
  process.exit(1);
}
const report = JSON.parse(readFileSync(reportFile, "utf8"));
const all = report.testResults.flatMap((file) => file.assertionResults);
const count = (status) => all.filter((test) => test.status === status).length;
const skipped = count("pending") + count("skipped") + count("todo");
console.error(`${label}: ${all.length} ran, ${count("passed")} passed, ${count("failed")} failed, ${skipped} skipped`);
const skips =
  skipsFile && existsSync(skipsFile)
    ? readFileSync(skipsFile, "utf8")
        .split(/\r?\n/)
        .filter(Boolean)
        .map((line) => JSON.parse(line))
    : [];
const reasons = new Map();
for (const skip of skips) reasons.set(skip.reason, (reasons.get(skip.reason) ?? 0) + 1);
for (const [reason, n] of reasons) console.error(`${label}:   skipped by probe, ${n}: ${reason}`);
const unexplained = skipped - skips.length;
if (unexplained > 0) console.error(`${label}:   skipped without a probe, ${unexplained} (it.skip / todo in the code)`);
for (const test of all.filter((t) => t.status === "failed")) console.error(`${label}:   failed: ${test.fullName}`);
// The suite's own failures (a file that did not load) count too.
for (const file of report.testResults.filter((f) => f.status === "failed" && f.assertionResults.length === 0))
  console.error(`${label}:   failed to load: ${file.name}: ${String(file.message ?? "").split("\n")[0]}`);
if (all.length === 0) process.exit(1);
