/**
 * The one writer of a test HOME's (or project's) .npmrc. A test names what it
 * needs: the fixture registry (`registryLine`), or the hostile or extra lines
 * it is about; nothing else is ever written there.
 */
import { promises as fs } from "node:fs";
// node:path: a HOME whose name holds a backslash keeps it (pathe would turn it into a separator).
import { join } from "node:path";

/** The line that points npm at a registry (the fixture verdaccio, or a dead one). */
export function registryLine(url: string): string {
  return `registry=${url}`;
}

/** Write `folder`/.npmrc: the lines given, each ended by a newline, or the text as it is. Returns its path. */
export async function writeNpmrc(folder: string, content: readonly string[] | string): Promise<string> {
  const path = join(folder, ".npmrc");
  await fs.mkdir(folder, { recursive: true });
  await fs.writeFile(path, typeof content === "string" ? content : content.map((line) => `${line}\n`).join(""));
  return path;
}
