/**
 * A test's HOME: the one place a test makes a home of its own that is not
 * an install (for that, ./installed.ts). A new scratch folder holds it
 * (./scratch.ts, removed when the file ends), or a folder the test names.
 *
 *   const home = await scratchHome({ registry: f.registryUrl });  // <scratch>/home, its ~/.npmrc naming the registry
 *   const home = await scratchHome({ parent: root, name: "ho me", files: { ".gentle-shell/agent/notes.md": "mine\n" } });
 *   const home = scratchHomePath({ name: "fresh home" });         // the path only: the install makes the folder
 *
 * `makeHome` (./fixtures.ts) is the other kind: a home whose agent folder
 * already names the stub model.
 */
import { promises as fs } from "node:fs";
// node:path: a home whose name holds a backslash keeps it (pathe would turn it into a separator).
import { dirname, join } from "node:path";
import { registryLine, writeNpmrc } from "./npmrc";
import { scratchDir } from "./scratch";

export interface HomePlace {
  /** The folder the home is made in; default a new scratch folder. */
  parent?: string;
  /** The new scratch folder's name prefix (without `parent`); default `gss-home-`. */
  scratch?: string;
  /** The home's own folder name in it; default `home`. */
  name?: string;
}

export interface HomeOptions extends HomePlace {
  /** Its ~/.npmrc names this registry (through writeNpmrc); default no .npmrc. */
  registry?: string;
  /** Files in it before the test runs, by path relative to it (their folders made). */
  files?: Record<string, string>;
}

/** Where a home would be: in `parent`, or in a new scratch folder (made, and removed when the file ends); the home itself is not made. */
export function scratchHomePath(place: HomePlace = {}): string {
  return join(place.parent ?? scratchDir(place.scratch ?? "gss-home-"), place.name ?? "home");
}

/** A home made at `scratchHomePath(options)`: the folder, its ~/.npmrc if `registry` is given, and `files`. */
export async function scratchHome(options: HomeOptions = {}): Promise<string> {
  const home = scratchHomePath(options);
  await fs.mkdir(home, { recursive: true });
  if (options.registry) await writeNpmrc(home, [registryLine(options.registry)]);
  for (const [rel, text] of Object.entries(options.files ?? {})) {
    await fs.mkdir(dirname(join(home, rel)), { recursive: true });
    await fs.writeFile(join(home, rel), text);
  }
  return home;
}
