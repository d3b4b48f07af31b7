/**
 * The end-to-end lanes' plain logic (issue 13): where a throwaway user's
 * files are on each host, how the launcher is named, the folder names the
 * sequence runs under, the mirror's host archives, and a loopback download
 * site in the shape of a release's download folder (a binary, SHA256SUMS and
 * the web installers). lane.test.ts runs the sequence on windows-latest,
 * macos-latest and, as a proof of the sequence, on Linux.
 */
import { createHash } from "node:crypto";
import { createReadStream, promises as fs } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { dirname, join } from "node:path";
import { pipeline } from "node:stream/promises";
import { productionPins } from "../../src/pins/production";
import type { FilePin, Pins, Target } from "../../src/pins/types";
import { homeEnv } from "../support/fixtures";

export type LanePlatform = "win32" | "darwin" | "linux";

/**
 * The folder names each sequence runs under: a plain one, and one holding
 * every character cmd.exe would read as syntax (a space, `!`, `%`, `^`, `&`,
 * `(`, `,`) and a non-ASCII letter: the `.cmd` launcher's delayed-expansion
 * rule exists for exactly these. One `%` only, so no `%NAME%` pair exists
 * for cmd.exe to expand even by mistake.
 */
export const LANE_FOLDERS = {
  plain: "gss lane",
  special: "gss lane ! 100% ^ & (x, Ärger",
} as const;

export function lanePlatform(platform: NodeJS.Platform = process.platform): LanePlatform {
  if (platform === "win32" || platform === "darwin" || platform === "linux") return platform;
  throw new Error(`no lane for ${platform}`);
}

export function laneTarget(platform: LanePlatform, arch: string = process.arch): Target {
  const cpu = arch === "arm64" ? "arm64" : "x64";
  return `${platform === "win32" ? "win" : platform}-${cpu}` as Target;
}

/** A throwaway user under `base`: their home, and on Windows their LOCALAPPDATA. */
export interface LaneUser {
  base: string;
  home: string;
  /** %LOCALAPPDATA% (Windows), else null. */
  localAppData: string | null;
  /** The install's prefix: %LOCALAPPDATA%\gentle-shell on Windows, ~/.gentle-shell elsewhere. */
  prefix: string;
  /** The launcher a user runs: bin\gentle-shell.cmd on Windows, bin/gentle-shell elsewhere. */
  launcher: string;
  /** The agent home (the stub model's configuration goes here): ~/.gentle-shell/agent on every system. */
  agentDir: string;
  env: NodeJS.ProcessEnv;
}

export function laneUser(platform: LanePlatform, base: string, extra: NodeJS.ProcessEnv = {}): LaneUser {
  const home = join(base, "home");
  const win = platform === "win32";
  const localAppData = win ? join(home, "AppData", "Local") : null;
  const prefix = win ? join(localAppData!, "gentle-shell") : join(home, ".gentle-shell");
  const env = win ? homeEnv(home, { USERPROFILE: home, LOCALAPPDATA: localAppData!, ...extra }) : homeEnv(home, { SHELL: "/bin/bash", ...extra });
  return {
    base,
    home,
    localAppData,
    prefix,
    launcher: join(prefix, "bin", win ? "gentle-shell.cmd" : "gentle-shell"),
    agentDir: join(home, ".gentle-shell", "agent"),
    env,
  };
}

/** What the test itself writes before anything is installed: the home, its .npmrc naming the registry, LOCALAPPDATA. */
export async function prepareLaneUser(user: LaneUser, registryUrl: string): Promise<void> {
  await fs.mkdir(user.home, { recursive: true });
  await fs.writeFile(join(user.home, ".npmrc"), `registry=${registryUrl}\n`);
  if (user.localAppData) await fs.mkdir(user.localAppData, { recursive: true });
}

/**
 * The archives an install on this host takes from the mirror that the
 * fixtures do not make: on Linux none (the fixture Node archive is the
 * linux-x64 pin); on macOS the real nodejs.org archive; on Windows the real
 * nodejs.org zip and the Go zip (a Windows install builds gentle-pi with our
 * Go). Their pins are the production ones, which the fixture pins keep for
 * every target but linux-x64.
 */
export function hostArchivePins(pins: Pins, target: Target): LaneArchive[] {
  if (target === "linux-x64") return [];
  const wanted: [string, FilePin | undefined, FilePin | undefined][] = [
    [`Node ${pins.node.version} (${target})`, pins.node.archives[target], productionPins.node.archives[target]],
  ];
  if (target.startsWith("win-")) wanted.push([`Go ${pins.go.version} (${target})`, pins.go.archives[target], productionPins.go.archives[target]]);
  return wanted.map(([name, pin, production]) => {
    // The official archive matches only the production pin.
    if (!pin?.sha256 || pin.sha256 !== production?.sha256) throw new Error(`${name}: the fixture pins do not keep the production pin`);
    return { name, pin };
  });
}

export interface LaneArchive {
  name: string;
  pin: FilePin;
}

export async function sha256File(file: string): Promise<string> {
  const hash = createHash("sha256");
  await pipeline(createReadStream(file), hash);
  return hash.digest("hex");
}

/** `<sha256>  <name>` lines, as build/build.mjs writes dist/SHA256SUMS. */
export function sumsText(entries: { name: string; sha256: string }[]): string {
  return entries.map((e) => `${e.sha256}  ${e.name}\n`).join("");
}

/**
 * A loopback download folder in a release's shape: each file by its name at
 * the root. `files` maps a name to a file on disk or to text; `set` replaces
 * one (a SHA256SUMS that does not match, for a fail-closed check).
 */
export interface DownloadSite {
  url: string;
  set(name: string, content: { file: string } | { text: string }): void;
  requests: string[];
  close(): Promise<void>;
}

export async function startDownloadSite(files: Record<string, { file: string } | { text: string }>): Promise<DownloadSite> {
  const routes = new Map(Object.entries(files));
  const requests: string[] = [];
  const server: Server = createServer((req, res) => {
    const name = decodeURIComponent((req.url ?? "/").split("?")[0]!.replace(/^\/+/, ""));
    requests.push(name);
    const content = routes.get(name);
    if (!content || req.method !== "GET") {
      res.writeHead(404).end("Not Found");
      return;
    }
    if ("text" in content) {
      res.writeHead(200, { "content-type": "text/plain; charset=utf-8" }).end(content.text);
      return;
    }
    // Scripts as text (what `irm` hands to `iex` is then a string), the rest as bytes.
    const type = /\.(ps1|sh)$/.test(name) ? "text/plain; charset=utf-8" : "application/octet-stream";
    fs.stat(content.file).then(
      (stat) => {
        res.writeHead(200, { "content-type": type, "content-length": stat.size });
        createReadStream(content.file).pipe(res);
      },
      () => res.writeHead(404).end("Not Found"),
    );
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url,
    requests,
    set: (name, content) => routes.set(name, content),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** Poll `check` until it returns true or `timeoutMs` passes; returns its last answer (the test asserts on what is left). */
export async function waitUntil(check: () => Promise<boolean>, timeoutMs: number, everyMs = 1000): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (await check()) return true;
    if (Date.now() >= deadline) return false;
    await new Promise((r) => setTimeout(r, everyMs));
  }
}

/** Copy a folder tree (a bundle onto "a stick"), keeping each file's mode. */
export async function copyTree(from: string, to: string): Promise<void> {
  await fs.mkdir(dirname(to), { recursive: true });
  await fs.cp(from, to, { recursive: true, preserveTimestamps: true, verbatimSymlinks: true });
}
