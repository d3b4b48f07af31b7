/** Types of build/pins-tools.mjs (plain JavaScript, run by node without a build step), for the tests. */
import type { FilePin, Pins } from "../src/pins/types";

export type ToolName = "fd" | "ripgrep";
export declare const TOOL_SOURCES: Record<ToolName, { releases: string; api: string; tag: (version: string) => string }>;

export interface ToolEntry {
  tool: ToolName;
  target: string;
  name: string;
  pin: FilePin;
  sha256: string | undefined;
  size: number | undefined;
}
export type ToolRecords = Record<string, { sha256: string; size: number }>;

export declare function parseSha256File(text: string, name: string): string;
export declare function parseAssetDigests(release: unknown): Map<string, string>;
export declare function toolEntries(pins: Pins, tool: ToolName, checksums: Map<string, string>, sizes: Map<string, number>): ToolEntry[];
export declare function compareTools(entries: ToolEntry[]): {
  checks: [string, string | number, string | number | undefined][];
  notes: string[];
};
export declare function toolRecords(entries: ToolEntry[]): { records: ToolRecords } | { missing: string[] };
export declare function rewriteToolPins(text: string, tool: ToolName, records: ToolRecords): string;
export declare function fetchToolSources(
  tool: ToolName,
  version: string,
  names: string[],
  bases?: { releases: string; api: string },
): Promise<{ checksums: Map<string, string>; sizes: Map<string, number> }>;
