/**
 * A version from an offline bundle (README: offline bundles): the bundle's
 * own release, installed by pnpm --offline from the bundle's verified store;
 * no registry is asked. Shared by a new install and by gentle-shell upgrade
 * --source <bundle>. A version already installed is reused without touching
 * the store.
 */
import type { Distribution } from "../../core/distribution";
import type { FetchedRelease } from "../release";
import type { Env } from "../../core/environment";
import type { Layout } from "../../core/layout";
import { installVersion, versionState } from "../version";
import { extractBundleStore } from "./open";

export interface BundleVersionOptions {
  layout: Layout;
  /** The bundle's release, its signature verified (readBundleRelease). */
  release: FetchedRelease;
  /** The bundle's store archive, copied off the bundle and verified (stageBundleStore). */
  stagedStore: string;
  env: Env;
  go: boolean;
  echo?: boolean;
}

export async function installBundleVersion(
  options: BundleVersionOptions,
): Promise<{ distribution: Distribution; result: Awaited<ReturnType<typeof installVersion>>; storeNote: string }> {
  const { layout, release } = options;
  const { distribution } = release;
  const install = (offline?: { store: string }) =>
    installVersion({ layout, distribution, env: options.env, engine: release.engine, go: options.go, echo: options.echo, offline });
  if ((await versionState(layout, distribution.manifest.id)).kind === "valid") return { distribution, result: await install(), storeNote: "" };
  const store = await extractBundleStore(layout, options.stagedStore);
  try {
    const result = await install({ store: store.dir });
    return { distribution, result, storeNote: store.kind === "prefix" ? "; the bundle's pnpm store is now the prefix's" : "" };
  } finally {
    await store.cleanup();
  }
}
