/**
 * Where an install records the source it came from (spec: "Upgrade", the
 * install's own source): config/install-source. Apart from the upgrade code,
 * so a launch that only reads it loads none of that.
 */
import { join } from "pathe";
import type { Layout } from "../core/layout";

export function sourceFile(layout: Layout): string {
  return join(layout.config, "install-source");
}
