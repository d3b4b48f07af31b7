/** This machine, in the layout's and the pins' terms. */
import type { Env } from "./environment";
import type { Platform } from "./layout";
import type { Target } from "../pins/types";

/** The layout's platform for a Node platform name; the Host passes the process's (nothing here reads it). */
export function hostPlatform(platform: NodeJS.Platform): Platform {
  return platform === "win32" ? "win32" : platform === "darwin" ? "darwin" : "linux";
}

/** The pins' target for a Node platform and arch; the Host passes the process's, as host.target. */
export function hostTarget(platform: NodeJS.Platform, arch: string): Target {
  const os = platform === "win32" ? "win" : platform === "darwin" ? "darwin" : "linux";
  return `${os}-${arch === "arm64" ? "arm64" : "x64"}` as Target;
}

/** The user's home: USERPROFILE on Windows, HOME elsewhere, else what the system says (`fallback`). */
export function homeOf(env: Env, platform: Platform, fallback: string): string {
  return (platform === "win32" ? env.USERPROFILE : env.HOME) || fallback;
}
