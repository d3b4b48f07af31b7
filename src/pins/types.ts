/**
 * Pins are the compiled-in facts every downloaded byte is checked against.
 * A pin that is not known is `null`: the artifact is then unavailable, never
 * fetched unchecked. Each pin names the public document it was read from.
 */

export type Os = "linux" | "darwin" | "win";
export type Arch = "x64" | "arm64";
export type Target = `${Os}-${Arch}`;

export const TARGETS: readonly Target[] = ["linux-x64", "linux-arm64", "darwin-x64", "darwin-arm64", "win-x64", "win-arm64"];

/** One downloadable file: its name in the source layout and what it must hash to. */
export interface FilePin {
  /** Path relative to a source root, e.g. `node/v24.21.0/node-v24.21.0-linux-x64.tar.gz`. */
  path: string;
  /** Lower-case hex sha256, or null when not known (artifact unavailable). */
  sha256: string | null;
  /** Exact size in bytes where the source publishes it, else null. */
  size: number | null;
  /** Hard cap on bytes read, checked against Content-Length and while streaming. */
  maxBytes: number;
}

/** A release signing key: the raw Ed25519 public key, base64url (a JWK's `x`). */
export interface ReleaseKey {
  publicKey: string;
  /** Who holds the private half and since when, for the maintainers. */
  note: string;
}

/**
 * One of Pi's own tools (fd, ripgrep): the release archives Pi itself would
 * download from the tool's GitHub release into <agent home>/bin, pinned.
 */
export interface ToolPin {
  version: string;
  source: string;
  archives: Partial<Record<Target, FilePin>>;
}

export interface Pins {
  /** "production" for the release build, "fixture" for a test build. */
  kind: "production" | "fixture";
  node: {
    version: string;
    npmVersion: string;
    source: string;
    archives: Partial<Record<Target, FilePin>>;
  };
  pnpm: {
    version: string;
    /** Subresource-integrity string of the registry tarball (sha512-...). */
    integrity: string | null;
    source: string;
    file: FilePin;
  };
  go: {
    version: string;
    source: string;
    archives: Partial<Record<Target, FilePin>>;
  };
  /**
   * The keys a release manifest may be signed with (rotation: add the new one,
   * sign with it, drop the old one a release later). null until the
   * maintainers generate the pair: such a build trusts no release.
   */
  release: {
    keys: ReleaseKey[] | null;
    source: string;
    /**
     * The exact Pi the next release pins (the spec's one Pi pin): release.yml
     * builds the release's distribution with it. null until the maintainers
     * record it; a release build refuses a null pin (verify-pins --release).
     */
    pi: string | null;
  };
  engram: {
    version: string;
    source: string;
    /** Database schema the pinned core writes (engram.db user_version), null if unverified. */
    schema: number | null;
    archives: Partial<Record<Target, FilePin>>;
  };
  /**
   * Pi's own tools (spec: "Launcher in a bundled install", Pi's own tools):
   * fd and ripgrep, provisioned verified into a Shell-owned agent home's bin
   * folder. A null archive pin leaves that tool to Pi, as without Shell.
   */
  tools: {
    fd: ToolPin;
    ripgrep: ToolPin;
  };
}
