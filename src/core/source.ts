/**
 * Sources (design: "Sources"): every artifact has one relative path, and a
 * source maps it to where the bytes are. The official source names each
 * project's own download host and the registry npm's configuration names; a
 * mirror is any base URL with the same layout; an offline bundle is a folder
 * with it. Whatever the source, the bytes are checked against the same pins.
 */
export type Source = { kind: "official"; registry: string } | { kind: "mirror"; base: string } | { kind: "folder"; root: string };

/** Hosts GitHub sends release downloads on to. */
export const RELEASE_REDIRECT_HOSTS = ["objects.githubusercontent.com", "release-assets.githubusercontent.com"];
/**
 * The release home (docs/releasing.md): one GitHub repository holds every
 * release, tagged v<gentle-pi version>: the setup binaries and the installers
 * (which the one-liners fetch from releases/latest/download, the newest
 * published release), the distribution assets, the engine and the signed
 * manifest. install.sh, install.ps1 and release.yml name the same one
 * (test/unit/release-home.test.ts).
 */
export const RELEASE_HOME = "Gentleman-Programming/gentle-shell-setup";
export const RELEASE_TAG_PREFIX = "v";
/** The one-liners a user installs with (README.md, docs/install.md), as a sentence hands them back. */
export const ONE_LINER = {
  posix: `curl -fsSL https://github.com/${RELEASE_HOME}/releases/latest/download/install.sh | sh`,
  windows: `irm https://github.com/${RELEASE_HOME}/releases/latest/download/install.ps1 | iex`,
} as const;
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

/**
 * The redirect policy of our HTTP client (src/io/http-client.ts): the official GitHub release assets (ours, Engram,
 * fd, ripgrep) may follow GitHub's redirect to its asset hosts; nothing else is sent on anywhere (the other runtimes'
 * hosts, the registry and a mirror never redirect).
 */
export function releaseRedirectHosts(url: string): readonly string[] {
  const official = [SHELL_RELEASES, ENGRAM_RELEASES, FD_RELEASES, RIPGREP_RELEASES].some((home) => url.startsWith(`${home}/`));
  return official ? RELEASE_REDIRECT_HOSTS : [];
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
