/** Types of build/package-manifests.mjs (plain JavaScript, run by node without a build step), for the tests. */
export declare const RELEASE_TARGETS: string[];
export declare const COMMAND: string;
export declare const INSTALL_COMMAND: string;
export declare const WINGET_ID: string;
export declare const WINGET_MANIFEST_VERSION: string;
export declare const SCOOP_MANIFEST: string;
export declare const HOMEBREW_FORMULA: string;

export interface ReleaseInput {
  version: string;
  home: string;
  sums: string;
  versionLine: string;
}
export interface ReleaseAsset {
  name: string;
  url: string;
  sha256: string;
}
export interface Release {
  version: string;
  home: string;
  homepage: string;
  download: string;
  versionLine: string;
  assets: Record<string, ReleaseAsset>;
}
export interface ManifestFile {
  name: string;
  text: string;
}

export declare function binaryName(target: string): string;
export declare function parseSums(text: string): Map<string, string>;
export declare function releaseOf(input: ReleaseInput): Release;
export declare function wingetManifests(
  release: Release,
): (ManifestFile & { schema: "version" | "installer" | "defaultLocale"; data: Record<string, unknown> })[];
export declare function scoopManifest(release: Release): ManifestFile & { data: Record<string, unknown> };
export declare function rubyString(text: string): string;
export declare function homebrewFormula(release: Release): ManifestFile;
export declare function packageManifests(input: ReleaseInput): ManifestFile[];
