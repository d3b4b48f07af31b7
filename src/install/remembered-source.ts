/**
 * Where an install came from, remembered for what later fetches from the same
 * place (spec: "Upgrade", the install's own source): config/install-source,
 * written by the install once its steps passed, read by upgrade, setup, the
 * launch's Pi tools and status. The official source is remembered as no file.
 * Apart from the upgrade code, so a launch that only reads it loads none of that.
 */
import { resolve } from "node:path";
import { join } from "../core/native-path";
import type { Layout } from "../core/layout";
import { lstatOrNull, readTextOrNull, writeFileAtomic } from "../io/files";
import { ensureOwnDir } from "../io/own-dir";
import { rm } from "../io/locked-retry";

export function sourceFile(layout: Layout): string {
  return join(layout.config, "install-source");
}

/** The source the install remembered (a mirror URL or a folder's full path), or undefined for the official one. */
export async function rememberedSource(layout: Layout): Promise<string | undefined> {
  return (await readTextOrNull(sourceFile(layout)))?.trim() || undefined;
}

/** Remember `source` (as --source gave it): a folder by its full path, so setup and upgrade find it from anywhere. */
export async function rememberSource(layout: Layout, source: string | undefined): Promise<void> {
  const file = sourceFile(layout);
  if (!source || source === "official") {
    // Only from a real config/ folder: never through a link put there.
    if ((await lstatOrNull(layout.config))?.isDirectory() && (await lstatOrNull(file))?.isFile()) await rm(file);
    return;
  }
  const remembered = /^https?:\/\//i.test(source) ? source : resolve(source);
  await ensureOwnDir(layout.prefix, layout.config, 0o700);
  await writeFileAtomic(file, `${remembered}\n`, 0o600);
}
