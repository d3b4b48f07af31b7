/** Types of build/pins-engram.mjs (plain JavaScript, run by node without a build step), for the tests. */
import type { FilePin, Pins } from "../src/pins/types";

export declare const ENGRAM_RELEASES: string;
export declare const ENGRAM_API: string;

export interface EngramEntry {
  target: string;
  name: string;
  pin: FilePin;
  sha256: string | undefined;
  size: number | undefined;
}
export type EngramRecords = Record<string, { sha256: string; size: number }>;

export declare function parseChecksums(text: string): Map<string, string>;
export declare function parseAssetSizes(release: unknown): Map<string, number>;
export declare function engramEntries(pins: Pins, checksums: Map<string, string>, sizes: Map<string, number>): EngramEntry[];
export declare function compareEngram(entries: EngramEntry[]): {
  checks: [string, string | number, string | number | undefined][];
  notes: string[];
};
export declare function engramRecords(entries: EngramEntry[]): { records: EngramRecords } | { missing: string[] };
export declare function engramSourceText(version: string, recorded: boolean): string;
export declare function rewriteEngramPins(text: string, version: string, records: EngramRecords): string;
export declare function nullPins(pins: Pins): string[];
export declare function parseMode(args: string[]): "verify" | "release" | "record-engram" | "record-tools";
export declare function getText(url: string, init?: RequestInit): Promise<string>;
export declare function fetchEngramSources(
  version: string,
  bases?: { releases: string; api: string },
): Promise<{ checksums: Map<string, string>; sizes: Map<string, number> }>;
