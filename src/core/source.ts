/**
 * Sources (design: "Sources"): every artifact has one relative path, and a
 * source maps it to where the bytes are. The official source names each
 * project's own download host and the registry npm's configuration names; a
 * mirror is any base URL with the same layout; an offline bundle is a folder
 * with it. Whatever the source, the bytes are checked against the same pins.
 */
export type Source =
  /** `registryCa`: the authorities the user's npm settings name for the registry (ca, cafile), for what is fetched from it. */
  { kind: "official"; registry: string; registryCa?: readonly string[] } | { kind: "mirror"; base: string } | { kind: "folder"; root: string };

/** Hosts GitHub sends release downloads on to. */
export const RELEASE_REDIRECT_HOSTS = ["objects.githubusercontent.com", "release-assets.githubusercontent.com"];
/**
 * The release home (README, "Releasing"): one GitHub repository holds every
 * release, tagged v<gentle-pi version>: the setup binaries and the installers
 * (which the one-liners fetch from releases/latest/download, the newest
 * published release), the distribution assets, the engine and the signed
 * manifest. install.sh, install.ps1 and release.yml name the same one
 * (test/unit/release-home.test.ts).
 */
export const RELEASE_HOME = "Gentleman-Programming/gentle-shell-setup";
export const RELEASE_TAG_PREFIX = "v";
export const SHELL_RELEASES = `https://github.com/${RELEASE_HOME}/releases/download`;
export const ENGRAM_RELEASES = "https://github.com/Gentleman-Programming/engram/releases/download";
/** Where Pi itself downloads fd and ripgrep from (dist/utils/tools-manager.js). */
export const FD_RELEASES = "https://github.com/sharkdp/fd/releases/download";
export const RIPGREP_RELEASES = "https://github.com/BurntSushi/ripgrep/releases/download";

export function releasePath(shell: string, file: string): string {
  return `releases/${RELEASE_TAG_PREFIX}${shell}/${file}`;
}

/** Where `path` lives in `source`: a URL, or a file path for a folder source. */
export function artifactLocation(source: Source, path: string): string {
  if (source.kind === "folder") return `${source.root.replace(/\/+$/, "")}/${path}`;
  if (source.kind === "mirror") return `${source.base.replace(/\/+$/, "")}/${path}`;
  const [top, ...rest] = path.split("/");
  const tail = rest.join("/");
  switch (top) {
    case "node":
      return `https://nodejs.org/dist/${tail}`;
    case "pnpm": {
      const file = rest[rest.length - 1]!;
      return `${source.registry.replace(/\/+$/, "")}/pnpm/-/${file}`;
    }
    case "go":
      return `https://dl.google.com/go/${tail}`;
    case "engram":
      return `${ENGRAM_RELEASES}/${tail}`;
    case "releases":
      return `${SHELL_RELEASES}/${tail}`;
    case "fd":
      return `${FD_RELEASES}/${tail}`;
    case "ripgrep":
      return `${RIPGREP_RELEASES}/${tail}`;
    default:
      throw new Error(`no official location for ${path}`);
  }
}

/** The authorities a request for `path` trusts in place of Node's roots: the registry's from the npm settings, for what comes from the registry (pnpm). */
export function authoritiesFor(source: Source, path: string): readonly string[] | undefined {
  return source.kind === "official" && path.split("/")[0] === "pnpm" ? source.registryCa : undefined;
}

/** GitHub release assets (ours, Engram, fd, ripgrep) may follow GitHub's redirect; other runtimes never redirect. */
export function redirectHostsFor(source: Source, path: string): string[] {
  if (source.kind !== "official") return [];
  const top = path.split("/")[0];
  return top === "releases" || top === "engram" || top === "fd" || top === "ripgrep" ? RELEASE_REDIRECT_HOSTS : [];
}

export function parseSource(value: string | undefined, registry: string): Source {
  if (!value || value === "official") return { kind: "official", registry };
  if (/^https?:\/\//i.test(value)) {
    const url = new URL(value);
    if (url.username || url.password) throw new Error("a --source URL must not carry credentials");
    return { kind: "mirror", base: value };
  }
  return { kind: "folder", root: value };
}
