/**
 * The fixture gentle-engram, the Pi package the launcher installs as the
 * memory companion (src/engine/companion/). A real Pi package, published to
 * the fixtures' verdaccio (local only: never proxied, never persisted into
 * the shared cache): its one extension writes what it received when Pi
 * loaded it, the ENGRAM_* variables and its version, to
 * `<agent home>/gentle-engram-fixture.json`. It never runs ENGRAM_BIN and
 * opens no store.
 *
 * Versions: 0.4.2 (Shell's old registration), 0.5.0 (`latest`), both with
 * `engram: { startupPolicy: 1 }`, and 0.6.0-nopolicy.0 under the dist-tag
 * `nopolicy` without it, for the failing policy check (an npm that installs
 * that tag: npm_config_tag=nopolicy).
 */
import { mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { packDeterministic } from "./tarball";

export const GENTLE_ENGRAM_MARKER = "gentle-engram-fixture.json";
/** Published in this order; each with its dist-tag. */
export const GENTLE_ENGRAM_VERSIONS = [
  { version: "0.4.2", tag: "latest", policy: true },
  { version: "0.5.0", tag: "latest", policy: true },
  { version: "0.6.0-nopolicy.0", tag: "nopolicy", policy: false },
] as const;

const extension = (version: string) => `// gentle-engram TEST FIXTURE extension: proves that Pi loaded this package, and what memory settings it got.
import { mkdirSync, writeFileSync } from "node:fs";
import { homedir } from "node:os";
import { join } from "node:path";

export default function gentleEngramFixture() {
  const agentDir = process.env.PI_CODING_AGENT_DIR || join(homedir(), ".pi", "agent");
  mkdirSync(agentDir, { recursive: true });
  const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => k.startsWith("ENGRAM_")));
  writeFileSync(join(agentDir, ${JSON.stringify(GENTLE_ENGRAM_MARKER)}), JSON.stringify({ name: "gentle-engram", fixture: true, version: ${JSON.stringify(version)}, pid: process.pid, env }) + "\\n");
}
`;

/** Pack gentle-engram@<version> into `outDir`; returns the tarball. */
export async function packGentleEngram(version: string, policy: boolean, outDir: string): Promise<string> {
  const stage = await mkdtemp(join(tmpdir(), "gss-gentle-engram-"));
  try {
    const pkg = join(stage, "package");
    await mkdir(join(pkg, "extensions"), { recursive: true });
    const manifest = {
      name: "gentle-engram",
      version,
      description: "TEST FIXTURE standing in for the gentle-engram Pi package in gentle-shell-setup's tests. Not Engram.",
      license: "MIT",
      type: "module",
      keywords: ["pi-package"],
      pi: { extensions: ["./extensions/record.js"] },
      ...(policy ? { engram: { startupPolicy: 1 } } : {}),
    };
    await writeFile(join(pkg, "package.json"), `${JSON.stringify(manifest, null, 2)}\n`);
    await writeFile(join(pkg, "extensions", "record.js"), extension(version));
    await mkdir(outDir, { recursive: true });
    const file = join(outDir, `gentle-engram-${version}.tgz`);
    await packDeterministic(stage, "package", file);
    return file;
  } finally {
    await rm(stage, { recursive: true, force: true });
  }
}

export interface GentleEngramRecord {
  version: string;
  pid: number;
  env: Record<string, string>;
}

/** What the fixture extension wrote into `agentDir`, or null when Pi never loaded it. */
export async function readGentleEngramRecord(agentDir: string): Promise<GentleEngramRecord | null> {
  const text = await readFile(join(agentDir, GENTLE_ENGRAM_MARKER), "utf8").catch(() => null);
  return text === null ? null : (JSON.parse(text) as GentleEngramRecord);
}
