/**
 * The install's step breakdown for `npm run bench`: the installer appends
 * step marks to the file GSS_STEP_TIMES names (src/io/step-times.ts); this
 * turns one install's marks into step times, and times each step's floor
 * (the least a step could cost, done by hand) in the same run.
 */
import { execFile } from "node:child_process";
import { readdirSync, statSync } from "node:fs";
import { mkdir, rm } from "node:fs/promises";
import { join, relative } from "node:path";
import { performance } from "node:perf_hooks";
import { promisify } from "node:util";

const run = promisify(execFile);

/** The rows of the breakdown, in install order; `floor` says what the floor does (null: none measured). */
export const STEP_ROWS = [
  { key: "claim", label: "claim", floor: "mkdir -m 700" },
  { key: "npmSettings", label: "npm settings", floor: null },
  { key: "download", label: "runtime download", floor: "curl of the same archives from the mirror, in parallel" },
  { key: "unpack", label: "extraction and checks", floor: "sha256sum, tar xzf of the same files, node --version" },
  { key: "pnpm", label: "pnpm install", floor: "bare pnpm install --frozen-lockfile, same lockfile and registry, cold store" },
  { key: "versionRest", label: "release and engine", floor: null },
  { key: "activate", label: "activate and launcher", floor: null },
  { key: "check", label: "launcher check", floor: "our Node started once (node -e 0)" },
  { key: "path", label: "PATH", floor: "one line appended to a file" },
  { key: "setup", label: "setup", floor: null },
];

/** One install's step times (ms) from its marks (JSON lines `{mark, at}`). A step without marks is 0. */
export function stepTimes(text) {
  const at = new Map();
  const downloads = [];
  for (const line of text.split("\n")) {
    if (!line.trim()) continue;
    const { mark, at: t } = JSON.parse(line);
    if (mark.endsWith(":downloaded")) downloads.push(t);
    if (!at.has(mark)) at.set(mark, t);
  }
  const span = (id) => (at.has(`${id}:start`) && at.has(`${id}:end`) ? at.get(`${id}:end`) - at.get(`${id}:start`) : 0);
  const runtimeStart = at.get("runtime:start");
  const runtimeEnd = at.get("runtime:end");
  // Downloads run at once; the runtime step's download part ends with the last archive verified.
  const inRuntime = downloads.filter((t) => runtimeStart !== undefined && t >= runtimeStart && t <= (runtimeEnd ?? Infinity));
  const download = inRuntime.length ? Math.max(...inRuntime) - runtimeStart : 0;
  const pnpm = span("pnpm");
  return {
    claim: span("claim"),
    npmSettings: span("npm-settings"),
    download,
    unpack: Math.max(0, span("runtime") - download),
    pnpm,
    versionRest: Math.max(0, span("version") - pnpm),
    activate: span("activate") + span("launcher"),
    check: span("verify-launcher"),
    path: span("path"),
    setup: span("setup"),
  };
}

/** The runtime archives an install downloads for linux-x64, as paths under the mirror's root. */
export function runtimeArchives(mirrorRoot, target = "linux-x64") {
  const [os, arch] = target.split("-");
  const files = [];
  const walk = (dir) => {
    for (const name of readdirSync(dir)) {
      const file = join(dir, name);
      if (statSync(file).isDirectory()) walk(file);
      else files.push(relative(mirrorRoot, file));
    }
  };
  walk(mirrorRoot);
  const archArch = arch === "x64" ? "(x64|amd64)" : arch;
  return files.filter(
    (rel) =>
      new RegExp(`^node/v[^/]+/node-v[^/]+-${os}-${arch}\\.tar\\.gz$`).test(rel) ||
      /^pnpm\/pnpm-[^/]+\.tgz$/.test(rel) ||
      new RegExp(`^engram/.*${os}[_-]${archArch}\\.tar\\.gz$`).test(rel),
  );
}

async function timed(work) {
  const t = performance.now();
  await work();
  return performance.now() - t;
}

/**
 * The floors of one run, each in a fresh folder under `work`.
 * @param {{ work: string, mirrorUrl: string, mirrorRoot: string, archives: string[], node: string,
 *   pnpm: (dir: string) => Promise<unknown>, project: (name: string) => Promise<string> }} o
 */
export async function floorTimes(o) {
  const dir = join(o.work, `floors-${Math.random().toString(16).slice(2)}`);
  await mkdir(dir, { recursive: true });
  try {
    const sh = (command) => run("sh", ["-c", command], { cwd: dir, maxBuffer: 16 << 20 });
    const claim = await timed(() => sh("mkdir -m 700 prefix"));
    const curls = o.archives.map((rel, i) => `curl -sSf -o dl-${i} "${o.mirrorUrl}/${rel}" &`).join("\n");
    const download = await timed(() => sh(`${curls}\nwait`));
    const unpack = await timed(async () => {
      // Node: only what the installer takes from its archive (node, npm, the licence).
      const members = (rel) => {
        const top = rel
          .split("/")
          .pop()
          .replace(/\.tar\.gz$/, "");
        return rel.startsWith("node/") ? ` "${top}/bin/node" "${top}/lib/node_modules/npm" "${top}/LICENSE"` : "";
      };
      const steps = o.archives.map((rel, i) => `sha256sum dl-${i} >/dev/null && mkdir x-${i} && tar xzf dl-${i} -C x-${i}${members(rel)}`).join(" && ");
      await sh(steps);
      await run(o.node, ["--version"]);
    });
    const project = await o.project("floor-pnpm");
    const pnpm = await timed(() => o.pnpm(project));
    await rm(project, { recursive: true, force: true });
    const check = await timed(() => run(o.node, ["-e", "0"]));
    const path = await timed(() => sh(`printf '%s\\n' 'export PATH="$HOME/.gentle-shell/bin:$PATH"' >> profile`));
    return { claim, npmSettings: null, download, unpack, pnpm, versionRest: null, activate: null, check, path, setup: null };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
