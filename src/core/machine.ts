/** This machine, in the layout's and the pins' terms. */
import type { Env } from "./environment";
import type { Platform } from "./layout";
import type { Target } from "../pins/types";

export function hostPlatform(platform: NodeJS.Platform = process.platform): Platform {
  return platform === "win32" ? "win32" : platform === "darwin" ? "darwin" : "linux";
}

export function hostTarget(platform: NodeJS.Platform = process.platform, arch: string = process.arch): Target {
  const os = platform === "win32" ? "win" : platform === "darwin" ? "darwin" : "linux";
  return `${os}-${arch === "arm64" ? "arm64" : "x64"}` as Target;
}

/** The user's home: USERPROFILE on Windows, HOME elsewhere, else what the system says (`fallback`). */
export function homeOf(env: Env, platform: Platform, fallback: string): string {
  return (platform === "win32" ? env.USERPROFILE : env.HOME) || fallback;
}
