/**
 * Where the time goes (issue 49, item 1): one Node acquisition (bench/acquire.ts, the installer's own
 * ensureRuntimes) run once under V8's --cpu-prof and once under `strace -c -f`, beside the figures of
 * bench/run.mjs. From the CPU profile: the ten functions with the most self time. From strace: the ten
 * system calls with the most calls, with the time the kernel spent in them. Neither run is timed against a
 * floor; they say which part of a timed run to look at.
 */
import { execFile, spawnSync } from "node:child_process";
import { mkdir, readFile, readdir, rm } from "node:fs/promises";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { relative } from "pathe";
import { promisify } from "node:util";

const run = promisify(execFile);

/** A script's file from its file URL; a URL with no drive letter, which Windows cannot make a path of, gives its path part. pathe's relative writes "/" on every system. */
function scriptPath(url) {
  try {
    return fileURLToPath(url);
  } catch {
    return decodeURIComponent(new URL(url).pathname);
  }
}

/** Self time per function of a .cpuprofile (V8's format: nodes with callFrame and hitCount, samples with timeDeltas). */
export function selfTimes(profile, repo) {
  const interval = (profile.endTime - profile.startTime) / Math.max(1, profile.samples.length) / 1000;
  const byKey = new Map();
  let total = 0;
  for (const node of profile.nodes) {
    const ms = node.hitCount * interval;
    total += ms;
    const { functionName, url, lineNumber } = node.callFrame;
    const where = url ? `${url.startsWith("file://") ? relative(repo, scriptPath(url)) : url}:${lineNumber + 1}` : "";
    const name = functionName || "(anonymous)";
    const key = `${name} ${where}`;
    const row = byKey.get(key) ?? { name, where, ms: 0 };
    row.ms += ms;
    byKey.set(key, row);
  }
  const rows = [...byKey.values()].sort((a, b) => b.ms - a.ms);
  return { total, rows };
}

/** The rows of `strace -c` (its summary table: % time, seconds, usecs/call, calls, errors, syscall). */
export function straceRows(text) {
  const rows = [];
  for (const line of text.split("\n")) {
    const cells = line.trim().split(/\s+/);
    if (cells.length < 5 || !/^\d+\.\d+$/.test(cells[0]) || cells.at(-1) === "total") continue;
    const errors = cells.length === 6 ? Number(cells[4]) : 0;
    rows.push({ syscall: cells.at(-1), seconds: Number(cells[1]), calls: Number(cells[3]), errors });
  }
  return rows.sort((a, b) => b.calls - a.calls);
}

/** The section: `acquire` is the argv after node (the bundled acquire.cjs and its JSON argument). */
export async function profileSection({ node24, acquire, work, repo }) {
  const dir = join(work, "cpu-profile");
  await mkdir(dir, { recursive: true });
  await run(node24, ["--cpu-prof", "--cpu-prof-dir", dir, "--cpu-prof-interval", "200", ...acquire], { maxBuffer: 1 << 20 });
  const file = (await readdir(dir)).find((name) => name.endsWith(".cpuprofile"));
  if (!file) throw new Error("bench: node wrote no CPU profile");
  const { total, rows } = selfTimes(JSON.parse(await readFile(join(dir, file), "utf8")), repo);
  const lines = [
    "## Where the time goes: one Node acquisition, profiled",
    "",
    "The same acquisition as the first table (`ensureRuntimes`, Node only, from the mirror), once under `--cpu-prof` (200 µs samples) and once under `strace -c -f`; neither run is one of the timed ones.",
    "",
    `CPU profile: ${total.toFixed(0)} ms of samples in the main thread; the ten functions with the most self time (\`(program)\` and \`(idle)\` are V8's own and waiting):`,
    "",
    "| function | where | self time | share |",
    "|---|---|---|---|",
    ...rows.slice(0, 10).map((r) => `| \`${r.name}\` | ${r.where ? `\`${r.where}\`` : "–"} | ${r.ms.toFixed(0)} ms | ${((100 * r.ms) / total).toFixed(1)}% |`),
    "",
  ];
  if (spawnSync("strace", ["-V"], { stdio: "ignore" }).status === 0) {
    const out = join(work, "strace.txt");
    await run("strace", ["-c", "-f", "-o", out, node24, ...acquire], { maxBuffer: 1 << 20 });
    const sys = straceRows(await readFile(out, "utf8"));
    const calls = sys.reduce((n, r) => n + r.calls, 0);
    lines.push(
      `System calls (\`strace -c -f\`, every thread and child: node, and the \`node --version\` and npm checks): ${calls} in all; the ten most made:`,
      "",
      "| syscall | calls | errors | kernel time |",
      "|---|---|---|---|",
      ...sys.slice(0, 10).map((r) => `| \`${r.syscall}\` | ${r.calls} | ${r.errors} | ${(r.seconds * 1000).toFixed(1)} ms |`),
      "",
    );
  } else {
    lines.push("System calls: strace is not installed on this machine, so they were not counted.", "");
  }
  await rm(dir, { recursive: true, force: true });
  return lines;
}
