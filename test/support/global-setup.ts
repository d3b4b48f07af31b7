/**
 * vitest global setup of the integration and e2e projects: starts the
 * fixtures once for the whole run and provides their plain-data description
 * to the test files (read it with `fixtures()` from ./context).
 *
 * vitest runs a project's global setup once per project that has files in
 * the run, each through a module loader of its own, so module state is not
 * shared between the two. The one run of the fixtures is kept on globalThis
 * (the main vitest process is the same): the first project starts them, the
 * second gets the same ones, and the last teardown stops them.
 */
import type { TestProject } from "vitest/node";
import { type FixtureInfo, startFixtures } from "./fixtures";
import { removeSharedInstalls } from "./shared-install-root";
import "./context";

interface Started {
  info: Promise<{ info: FixtureInfo; stop: () => Promise<void> }>;
  users: number;
}

const KEY = Symbol.for("gentle-shell-setup.test-fixtures");
const shared = globalThis as { [KEY]?: Started };

function startOnce(): Started {
  const running = shared[KEY];
  if (running) return running;
  const log = (line: string) => process.stderr.write(`fixtures: ${line}\n`);
  const info = startFixtures({ log }).then((started) => {
    const { registry: _r, mirror: _m, model: _s, engram: _e, makeHome: _h, stop, ...info } = started;
    return { info, stop };
  });
  const fresh: Started = { info, users: 0 };
  shared[KEY] = fresh;
  // A failed start is not kept: the project that meets it fails, and a later run starts again.
  info.catch(() => {
    if (shared[KEY] === fresh) delete shared[KEY];
  });
  return fresh;
}

export default async function setup(project: TestProject) {
  const run = startOnce();
  run.users++;
  const { info, stop } = await run.info;
  project.provide("fixtures", info);
  return async () => {
    if (--run.users > 0) return;
    delete shared[KEY];
    await removeSharedInstalls(info.runDir);
    await stop();
  };
}
