/** Every .ts file under `dir`, at any depth, as paths joined with forward slashes (pathe): what the source-reading unit tests read. */
import { readdirSync } from "node:fs";
import { join } from "pathe";

export function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? sourceFiles(join(dir, e.name)) : e.name.endsWith(".ts") ? [join(dir, e.name)] : [],
  );
}
