/**
 * vitest global setup of the integration project: starts the fixtures once
 * for the whole run and provides their plain-data description to the test
 * files (read it with `fixtures()` from ./context).
 */
import type { TestProject } from "vitest/node";
import { startFixtures } from "./fixtures";
import { removeSharedInstalls } from "./shared-install-root";
import "./context";

export default async function setup(project: TestProject) {
  const log = (line: string) => process.stderr.write(`fixtures: ${line}\n`);
  const started = await startFixtures({ log });
  const { registry: _r, mirror: _m, model: _s, engram: _e, makeHome: _h, stop, ...info } = started;
  project.provide("fixtures", info);
  return async () => {
    await removeSharedInstalls(info.runDir);
    await stop();
  };
}
