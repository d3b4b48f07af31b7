/**
 * Which release to install: the one asked for, else the registry's
 * gentle-pi `latest`, with its two distribution assets read from the source
 * and checked by readDistribution.
 */
import type { Source } from "../core/source";
import { releasePath } from "../core/source";
import { DISTRIBUTION_JSON, DISTRIBUTION_LOCK, readDistribution, SHELL_PACKAGE, type Distribution } from "../core/distribution";
import { assertExactVersion } from "../core/versions";
import { npmrcAuthHeader } from "../core/npmrc";
import type { Env } from "../core/environment";
import { fetchBoundedText } from "../io/http";
import { fetchText } from "./fetch";

export async function latestRelease(registry: string, npmrc: string, env: Env): Promise<string> {
  const url = `${registry.replace(/\/+$/, "")}/${SHELL_PACKAGE}`;
  const auth = npmrcAuthHeader(npmrc, url, env);
  const headers: Record<string, string> = { accept: "application/vnd.npm.install-v1+json; q=1.0, application/json; q=0.8" };
  if (auth) headers.authorization = auth;
  const text = await fetchBoundedText(url, { name: `the ${SHELL_PACKAGE} release list`, maxBytes: 32 * 1024 * 1024, headers });
  let latest: unknown;
  try {
    latest = (JSON.parse(text) as { "dist-tags"?: { latest?: unknown } })["dist-tags"]?.latest;
  } catch {
    throw new Error(`the registry's answer for ${SHELL_PACKAGE} is not JSON`);
  }
  return assertExactVersion(`the registry's latest ${SHELL_PACKAGE}`, latest);
}

export async function fetchDistribution(source: Source, shell: string, tmp: string): Promise<Distribution> {
  return (await fetchDistributionAssets(source, shell, tmp)).distribution;
}

/** The two assets as the source served them (an offline bundle keeps these exact bytes), and what they read as. */
export async function fetchDistributionAssets(source: Source, shell: string, tmp: string): Promise<{ json: string; lock: string; distribution: Distribution }> {
  assertExactVersion("the release", shell);
  let json: string;
  let lock: string;
  try {
    json = await fetchText(source, releasePath(shell, DISTRIBUTION_JSON), tmp, DISTRIBUTION_JSON, 1024 * 1024);
    lock = await fetchText(source, releasePath(shell, DISTRIBUTION_LOCK), tmp, DISTRIBUTION_LOCK, 16 * 1024 * 1024);
  } catch (error) {
    if ((error as { status?: number }).status === 404 || /not in /.test((error as Error).message)) {
      throw new Error(`Gentle Shell ${shell} has no published distribution assets (${DISTRIBUTION_JSON}); nothing was changed`);
    }
    throw error;
  }
  return { json, lock, distribution: readDistribution(json, lock) };
}
