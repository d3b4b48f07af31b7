/**
 * The user's npm settings (spec: "User npm settings"): userNpmrc reads them,
 * filterNpmrc (src/core/npmrc.ts) keeps the network, registry and auth keys,
 * writeNpmrcAuth puts the result where our pnpm and npm read it.
 */
import { errnoCode } from "../core/errno";
import { constants, promises as fs } from "node:fs";
import { join } from "../core/native-path";
import type { Layout } from "../core/layout";
import { envValue, type Env } from "../core/environment";
import { writeFileAtomic } from "../io/files";
import { ensureOwnDir } from "../io/own-dir";
import { filterNpmrc, npmrcTrust, registryCredentialsToAuth } from "../core/npmrc";
import type { HttpClient } from "../io/http-client";

export const NPMRC_MAX_BYTES = 1024 * 1024;

/** userNpmrc: NPM_CONFIG_USERCONFIG (any case) when absolute, else ~/.npmrc; at most 1 MiB. */
export async function userNpmrc(env: Env, home: string): Promise<{ path: string; text: string }> {
  const configured = envValue(env, "npm_config_userconfig", "any-case");
  const path = configured && (configured.startsWith("/") || /^[A-Za-z]:[\\/]/.test(configured)) ? configured : join(home, ".npmrc");
  try {
    // O_NONBLOCK: a FIFO put at ~/.npmrc must not hang the installer.
    const handle = await fs.open(path, constants.O_RDONLY | constants.O_NONBLOCK);
    try {
      const stat = await handle.stat();
      if (!stat.isFile()) return { path, text: "" };
      const buffer = Buffer.alloc(NPMRC_MAX_BYTES + 1);
      let length = 0;
      for (;;) {
        const { bytesRead } = await handle.read(buffer, length, buffer.length - length, null);
        if (bytesRead === 0) break;
        length += bytesRead;
        if (length > NPMRC_MAX_BYTES)
          throw new Error(`${path} is larger than 1 MiB, so it was not read; shorten it, or point NPM_CONFIG_USERCONFIG at a smaller file`);
      }
      return { path, text: buffer.subarray(0, length).toString("utf8") };
    } finally {
      await handle.close();
    }
  } catch (error) {
    if (errnoCode(error) === "ENOENT") return { path, text: "" };
    throw error;
  }
}

/** writeNpmrcAuth: the filtered settings at pnpm/config/npmrc, mode 0600, one rename. */
export async function writeNpmrcAuth(layout: Layout, text: string): Promise<void> {
  await ensureOwnDir(layout.prefix, layout.pnpm.config, 0o700);
  await writeFileAtomic(layout.pnpm.npmrc, text, 0o600);
}

/** What of the user's npm settings we copy: the kept keys, credentials in auth form, and the file they came from. */
export async function userRegistrySettings(env: Env, home: string): Promise<{ path: string; npmrc: string }> {
  const user = await userNpmrc(env, home);
  return { path: user.path, npmrc: registryCredentialsToAuth(filterNpmrc(user.text)) };
}

/**
 * The authorities the user's npm settings name for the registry: `ca` (or
 * `ca[]`) lines and the certificates in `cafile`, which npm trusts for
 * registry requests in place of Node's roots; we send ours the same way.
 * Undefined when the settings name none. A cafile that cannot be read is
 * one sentence, as npm refuses it too.
 */
export async function registryAuthorities(npmrc: string, env: Env): Promise<string[] | undefined> {
  const trust = npmrcTrust(npmrc, env);
  const certificates = [...trust.ca];
  if (trust.cafile) {
    const text = await fs.readFile(trust.cafile, "utf8").catch((error: NodeJS.ErrnoException) => {
      throw new Error(`cafile=${trust.cafile} in your npm settings cannot be read (${error.code ?? error.message}); fix the path or remove the setting`);
    });
    const found = text.match(/-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g) ?? [];
    if (!found.length) throw new Error(`cafile=${trust.cafile} in your npm settings holds no PEM certificate; fix it or remove the setting`);
    certificates.push(...found);
  }
  return certificates.length ? certificates : undefined;
}

/**
 * The HTTP client (../io/http-client.ts) trusts `registries` (the default registry, a scope's own) with the
 * authorities the npm settings name, for every URL under them from now on, as npm sends its ca and cafile with
 * every registry request.
 */
export async function trustRegistries(http: Pick<HttpClient, "trustRegistry">, registries: readonly string[], npmrc: string, env: Env): Promise<void> {
  const ca = await registryAuthorities(npmrc, env);
  for (const registry of registries) http.trustRegistry(registry, ca);
}
