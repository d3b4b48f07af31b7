/**
 * The record of the registry our npm reports by default (issue 11, Startup
 * offer fixes). When the prefix npmrc names no registry, the install and
 * upgrade ask our npm (`npm config get registry`, install/npm-registry.ts); the
 * startup offer must ask the same registry, but within its 1.5 s, and
 * starting npm costs a few hundred milliseconds. So the offer keeps npm's
 * answer in <prefix>/npm/registry.json together with a fingerprint of
 * everything that answer depends on, and asks npm again only when the
 * fingerprint changes. Pure: the fingerprint and the record's text.
 *
 * With the flags and the environment configuredRegistry uses (every npm_*
 * variable dropped, --userconfig, --globalconfig and --prefix given), npm's
 * answer depends on:
 *  - the files it reads: the user config (the prefix npmrc), the project
 *    config (<prefix folder>/.npmrc), the global config and npm's built-in
 *    config (npmrc in npm's own folder);
 *  - the variables those files name as `${NAME}` (npm expands them);
 *  - npm itself, whose built-in default is the answer when no file names a
 *    registry: its entry's path and its version.
 */
import { createHash } from "node:crypto";
import { npmrcVariables } from "./npmrc";
import type { Env } from "./environment";

export interface RegistryInputs {
  npmCli: string;
  /** npm's package.json version, or null when unreadable. */
  npmVersion: string | null;
  /** Each config file npm reads, by path, with its text (null when absent). */
  files: ReadonlyArray<readonly [path: string, text: string | null]>;
  env: Readonly<Env>;
}

/** The sha256 of everything npm's default registry answer depends on (variables' values are hashed, never stored). */
export function registryFingerprint(inputs: RegistryInputs): string {
  const names = [...new Set(inputs.files.flatMap(([, text]) => (text ? npmrcVariables(text) : [])))].sort();
  const data = {
    npmCli: inputs.npmCli,
    npmVersion: inputs.npmVersion,
    files: inputs.files.map(([path, text]) => [path, text]),
    variables: names.map((name) => [name, inputs.env[name] ?? null]),
  };
  return createHash("sha256").update(JSON.stringify(data)).digest("hex");
}

/** The record's text: the registry npm reported, for these inputs. */
export function registryRecordText(fingerprint: string, registry: string): string {
  return `${JSON.stringify({ fingerprint, registry }, null, 2)}\n`;
}

/** The recorded registry, only when the record is well formed and was made from these same inputs. */
export function recordedRegistryFor(text: string | null, fingerprint: string): string | null {
  if (!text) return null;
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return null;
  }
  if (typeof parsed !== "object" || parsed === null) return null;
  const { fingerprint: recorded, registry } = parsed as { fingerprint?: unknown; registry?: unknown };
  if (recorded !== fingerprint || typeof registry !== "string" || !/^https?:\/\/\S+\/$/.test(registry)) return null;
  return registry;
}
