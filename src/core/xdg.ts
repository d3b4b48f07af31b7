/**
 * An XDG base folder (XDG_CONFIG_HOME, XDG_DATA_HOME, ...) read one way
 * (issue 48: it was read two ways): the variable when it holds an absolute
 * path, else the fallback. The XDG Base Directory specification has a
 * relative value ignored, as if unset. Pure.
 */
import type { Env } from "./environment";
import { isAbsolute } from "./native-path";

export function xdgFolder(env: Env, name: string, fallback: string): string {
  const value = env[name];
  return value && isAbsolute(value) ? value : fallback;
}
