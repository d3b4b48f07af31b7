/**
 * Where Pi's own tools are, and whether the one in the agent home is ours
 * (spec: "Launcher in a bundled install", Pi's own tools): what every launch
 * asks, kept apart from acquiring and placing them (./pi-tool-runtime.ts), so a
 * launch that finds them in place loads no archive or download code.
 */
import { createReadStream } from "node:fs";
import { join } from "../../core/native-path";
import type { Layout } from "../../core/layout";
import { parseToolMarker, toolFileName, toolMarkerName, type PiTool, type ToolPresence } from "../../core/pi-tool-rules";
import { lstatOrNull, readTextOrNull } from "../../io/files";

export function toolRuntimeDir(layout: Layout, tool: PiTool): string {
  return tool.name === "fd" ? layout.fdDir : layout.ripgrepDir;
}

/** The verified executable under runtime/. */
export function toolRuntimeFile(layout: Layout, tool: PiTool): string {
  return join(toolRuntimeDir(layout, tool), toolFileName(tool, layout.platform));
}

export async function sha256Of(file: string): Promise<string> {
  // Loaded here: a launch that finds its tools in place never hashes one.
  const { createHash } = await import("node:crypto");
  const hash = createHash("sha256");
  for await (const chunk of createReadStream(file)) hash.update(chunk as Buffer);
  return hash.digest("hex");
}

/**
 * What stands at <agent home>/bin/<exe>: nothing, our file (its marker's
 * bytes; "ours-outdated" when its marker names another version than
 * `version`), or anything else. With `version`, a file beside our marker of
 * that version reads "ours" unread: the launch keeps it either way.
 */
export async function toolPresence(layout: Layout, tool: PiTool, version?: string): Promise<ToolPresence> {
  const file = join(layout.agentBin, toolFileName(tool, layout.platform));
  const stat = await lstatOrNull(file);
  if (!stat) return "absent";
  if (!stat.isFile()) return "other";
  const marker = parseToolMarker(await readTextOrNull(join(layout.agentBin, toolMarkerName(tool))), tool);
  if (!marker) return "other";
  // A launch keeps a file beside our marker of the pinned version whoever's it is, so it need not read
  // its bytes (a launch waits on this); removing or replacing one always does.
  if (version !== undefined && marker.version === version) return "ours";
  if ((await sha256Of(file)) !== marker.sha256) return "other";
  return version === undefined || marker.version === version ? "ours" : "ours-outdated";
}
