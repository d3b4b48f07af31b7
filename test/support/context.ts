/**
 * What the global setup provides to the integration and e2e projects' test files.
 *
 *   import { fixtures } from "../support/context";
 *   const f = fixtures();            // registryUrl, mirrorUrl, binary, releases, ...
 *   const home = await makeHome(dir, f);
 */
import { inject } from "vitest";
import type { FixtureInfo } from "./fixtures";

declare module "vitest" {
  export interface ProvidedContext {
    fixtures: FixtureInfo;
  }
}

export function fixtures(): FixtureInfo {
  const info = inject("fixtures");
  if (!info) throw new Error("no fixtures: this file must run in the integration or e2e project (vitest --project integration, or --project e2e)");
  return info;
}
