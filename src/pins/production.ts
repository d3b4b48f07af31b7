import type { FilePin, Pins, Target } from "./types";

const MiB = 1024 * 1024;

function nodeArchive(target: Target, sha256: string): FilePin {
  const ext = target.startsWith("win-") ? "zip" : "tar.gz";
  return {
    path: `node/v24.21.0/node-v24.21.0-${target}.${ext}`,
    sha256,
    size: null,
    maxBytes: 100 * MiB,
  };
}

function goArchive(_target: Target, suffix: string, sha256: string, size: number): FilePin {
  return { path: `go/go1.25.14.${suffix}`, sha256, size, maxBytes: size };
}

/**
 * An Engram release archive: sha256 from the release's checksums.txt, size
 * from the release's asset list. Written by `node build/verify-pins.mjs
 * --record-engram` (null until then: memory is disabled for that target).
 */
function engramArchive(target: Target, sha256: string | null, size: number | null): FilePin {
  const [os, arch] = target.split("-") as [string, string];
  const goOs = os === "win" ? "windows" : os;
  const goArch = arch === "x64" ? "amd64" : arch;
  const ext = os === "win" ? "zip" : "tar.gz";
  return {
    path: `engram/v3.5.2/engram_3.5.2_${goOs}_${goArch}.${ext}`,
    sha256,
    size,
    maxBytes: 64 * MiB,
  };
}

/**
 * The release target suffix fd and ripgrep share (Pi's getReleaseTarget in
 * dist/utils/tools-manager.js): musl builds on Linux, msvc zips on Windows.
 */
export function toolTargetSuffix(target: Target): string {
  const [os, arch] = target.split("-") as [string, string];
  const cpu = arch === "x64" ? "x86_64" : "aarch64";
  if (os === "linux") return `${cpu}-unknown-linux-musl.tar.gz`;
  if (os === "darwin") return `${cpu}-apple-darwin.tar.gz`;
  return `${cpu}-pc-windows-msvc.zip`;
}

/** fd's release archive (tag v<version>, asset fd-v<version>-<suffix>). Sha256 and size from the release's asset list. */
function fdArchive(target: Target, sha256: string | null, size: number | null): FilePin {
  return { path: `fd/v${FD_VERSION}/fd-v${FD_VERSION}-${toolTargetSuffix(target)}`, sha256, size, maxBytes: 32 * MiB };
}

/** ripgrep's release archive (tag <version>, asset ripgrep-<version>-<suffix>). Sha256 from its .sha256 file, size from the asset list. */
function ripgrepArchive(target: Target, sha256: string | null, size: number | null): FilePin {
  return { path: `ripgrep/${RIPGREP_VERSION}/ripgrep-${RIPGREP_VERSION}-${toolTargetSuffix(target)}`, sha256, size, maxBytes: 32 * MiB };
}

/**
 * fd 10.3.0: the release Pi 1.6.0 itself pins on darwin-x64 (later fd
 * releases build no x86_64-apple-darwin), so one version serves every target.
 */
export const FD_VERSION = "10.3.0";
export const RIPGREP_VERSION = "15.1.0";

/** The pins a release binary is built with. */
export const productionPins: Pins = {
  kind: "production",
  node: {
    version: "24.21.0",
    npmVersion: "11.19.0",
    source: "https://nodejs.org/dist/v24.21.0/SHASUMS256.txt",
    archives: {
      "darwin-arm64": nodeArchive("darwin-arm64", "bed7eea5325e1108f32ce5228ddd6a5f0f08a499ee42aa7442aea583702f6057"),
      "darwin-x64": nodeArchive("darwin-x64", "1462cb3b3046b815cf8ea436d3da450ec1a9f11dac7e5a46b0ada5305d7e8097"),
      "linux-arm64": nodeArchive("linux-arm64", "724282c3b43aec998aa9527380465b45d229e021b58035f5f4f63095eabfe5d5"),
      "linux-x64": nodeArchive("linux-x64", "6e1db87ef58b8819e5d5402eff1536491b18edd8eb7bee5ef7897876e88dc5ff"),
      "win-x64": nodeArchive("win-x64", "158f7685b44de51f6c0df1d153526cbcd3e1bc739a8dfc607721cef75de9e541"),
      "win-arm64": nodeArchive("win-arm64", "8779b1bde1d39f8d420e3b57aa657b39891af434d3de44a919044cec06785921"),
    },
  },
  pnpm: {
    version: "11.1.1",
    integrity: "sha512-0f319zxhe2T6GlaoHDyN/g6WbjOmAQqiVrUXrne+Idk+Ba/8DeGoOw5PKdVp9otEaujwaM1yR8C7PfD7TXvfmg==",
    source: "npm view pnpm@11.1.1 dist.integrity (the npm registry's packument for pnpm)",
    file: { path: "pnpm/pnpm-11.1.1.tgz", sha256: null, size: null, maxBytes: 32 * MiB },
  },
  go: {
    version: "1.25.14",
    source: "https://go.dev/dl/?mode=json&include=all",
    archives: {
      "darwin-arm64": goArchive("darwin-arm64", "darwin-arm64.tar.gz", "5b26c0b6f308240fca2614fb02f622cfcc8c0cc3b69c78bba4845489a4590259", 58123934),
      "darwin-x64": goArchive("darwin-x64", "darwin-amd64.tar.gz", "b09087a67d5792a8b0fcbf74212d62560c94ac8a8fd750ff920d8cb5f1e20118", 60622678),
      "linux-x64": goArchive("linux-x64", "linux-amd64.tar.gz", "a21ae5633a269bcd7e90cf767e48225633795e99d831742cbf3397064fee7712", 59909419),
      "linux-arm64": goArchive("linux-arm64", "linux-arm64.tar.gz", "9bf234ea70ffec9347fdf6b22ce4add51717d3386a38a441e8c8743fceb5eaee", 57360344),
      "win-x64": goArchive("win-x64", "windows-amd64.zip", "119044a92b3987c341cd6aebb256676dd4780d292f7b4e72a3e9976677841697", 67591780),
      "win-arm64": goArchive("win-arm64", "windows-arm64.zip", "96fb31ae26b288b5311bd31d8252d4a62c8a661e4dbb64d504cc646e4d10a57f", 64735369),
    },
  },
  release: {
    // The maintainers' key pair is not generated yet (build/RELEASE-NOTES.md, "Release signing key").
    keys: null,
    source: "the public half of the maintainers' release signing key (build/RELEASE-NOTES.md)",
    // The Pi the next release pins: recorded by the maintainers with the gentle-pi release it belongs to (docs/releasing.md).
    pi: null,
  },
  engram: {
    version: "3.5.2",
    source: "Engram v3.5.2 GitHub release: sha256 from its checksums.txt, sizes from its asset list (not yet recorded)",
    schema: 1,
    archives: {
      "linux-x64": engramArchive("linux-x64", null, null),
      "linux-arm64": engramArchive("linux-arm64", null, null),
      "darwin-x64": engramArchive("darwin-x64", null, null),
      "darwin-arm64": engramArchive("darwin-arm64", null, null),
      "win-x64": engramArchive("win-x64", null, null),
      "win-arm64": engramArchive("win-arm64", null, null),
    },
  },
  tools: {
    fd: {
      version: FD_VERSION,
      source: `fd v${FD_VERSION} GitHub release: sha256 and size from its asset list (null until recorded)`,
      archives: {
        "linux-x64": fdArchive("linux-x64", null, null),
        "linux-arm64": fdArchive("linux-arm64", null, null),
        "darwin-x64": fdArchive("darwin-x64", null, null),
        "darwin-arm64": fdArchive("darwin-arm64", null, null),
        "win-x64": fdArchive("win-x64", null, null),
        "win-arm64": fdArchive("win-arm64", null, null),
      },
    },
    ripgrep: {
      version: RIPGREP_VERSION,
      source: `ripgrep ${RIPGREP_VERSION} GitHub release: sha256 from each archive's .sha256 file, size from its asset list (null until recorded)`,
      archives: {
        "linux-x64": ripgrepArchive("linux-x64", null, null),
        "linux-arm64": ripgrepArchive("linux-arm64", null, null),
        "darwin-x64": ripgrepArchive("darwin-x64", null, null),
        "darwin-arm64": ripgrepArchive("darwin-arm64", null, null),
        "win-x64": ripgrepArchive("win-x64", null, null),
        "win-arm64": ripgrepArchive("win-arm64", null, null),
      },
    },
  },
};
