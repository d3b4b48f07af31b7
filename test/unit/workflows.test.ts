/**
 * The workflows are thin (issue 38): each job's steps call scripts of the repo
 * that this machine runs too, and what a job needs of its runner is written
 * down. Read from .github/workflows/*.yml and .ci/run as they are; the
 * workflows' own schema and actionlint's rules are npm run lint's (.ci/lint).
 */
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { load } from "js-yaml";
import { describe, expect, it } from "vitest";
import { REPO_ROOT } from "../support/paths";

interface Step {
  run?: string;
  uses?: string;
  if?: string;
  shell?: string;
  env?: Record<string, string>;
}
interface Job {
  "runs-on": string;
  "timeout-minutes"?: number;
  strategy?: { matrix?: { os?: string[] } };
  steps: Step[];
}
const workflow = (name: string) => load(readFileSync(join(REPO_ROOT, ".github", "workflows", name), "utf8")) as { jobs: Record<string, Job> };
const ci = workflow("ci.yml");
const ciRun = readFileSync(join(REPO_ROOT, ".ci", "run"), "utf8");
const runners = readFileSync(join(REPO_ROOT, "test", "runners", "run.sh"), "utf8");

/** The .ci scripts a step starts (bash .ci/x, ./.ci/x.ps1). */
const ciScripts = (step: Step) => [...(step.run ?? "").matchAll(/\.ci\/([\w.-]+)/g)].map((m) => m[1]!);

/** Steps that only the runner named can run: its own OS's tools. Each is here with why. */
const RUNNER_ONLY: Record<string, string> = {
  "install-ps1.ps1": "PowerShell 7 and 5.1, PSScriptAnalyzer and Pester (PowerShell under Wine is a stub)",
};

describe("ci.yml", () => {
  it("starts only .ci scripts that exist, and every one of them also runs on this machine (.ci/run or test:runners) unless only a runner can", () => {
    const names = new Set(readdirSync(join(REPO_ROOT, ".ci")));
    for (const [id, job] of Object.entries(ci.jobs)) {
      for (const step of job.steps) {
        for (const script of ciScripts(step)) {
          expect(names.has(script), `${id} starts .ci/${script}, which is not in .ci/`).toBe(true);
          const here = ciRun.includes(`.ci/${script}`) || runners.includes(`.ci/${script}`) || script === "run";
          expect(here || script in RUNNER_ONLY, `${id} starts .ci/${script}, which nothing here runs`).toBe(true);
        }
      }
    }
  });

  it("runs a step's own commands only where they are the runner's alone (a Windows-only step, or installing the dependencies)", () => {
    for (const [id, job] of Object.entries(ci.jobs)) {
      for (const step of job.steps) {
        if (!step.run || ciScripts(step).length > 0) continue;
        const windowsOnly = step.if === "runner.os == 'Windows'" || (job["runs-on"] === "windows-latest" && step.shell === "pwsh");
        const own = step.run.trim() === "npm ci --no-audit --no-fund" || windowsOnly;
        expect(own, `${id}: a step runs \`${step.run.trim().split("\n")[0]}\`; put it in a .ci script this machine runs`).toBe(true);
      }
    }
  });

  it("gives the linux job more time than .ci/run allows its parts, and never asks an Ubuntu runner for the Wine lane's Debian 13 chroot", () => {
    const linux = ci.jobs.linux!;
    expect(linux["runs-on"]).toBe("ubuntu-latest");
    const run = linux.steps.map((s) => s.run ?? "").find((r) => r.includes(".ci/run"));
    expect(run).toContain("--no-wine-lane");
    // Every limit .ci/run sets on a part that the linux job reaches (the Wine lane's is behind --no-wine-lane).
    const limits = [...ciRun.matchAll(/timeout --kill-after=1m (\d+)m npm test|part "[^"]+" (\d+)m /g)].map((m) => Number(m[1] ?? m[2]));
    expect(limits.length).toBeGreaterThanOrEqual(3);
    const wineLimit = Number(/part "npm run test:windows" (\d+)m/.exec(ciRun)?.[1]);
    const reached = limits.reduce((a, b) => a + b, 0) - wineLimit;
    expect(linux["timeout-minutes"]).toBeGreaterThan(reached);
    expect(ciRun).toMatch(/if \[ "\$wine_lane" -eq 1 \]; then part "npm run test:windows"/);
  });

  it("runs every job's tests on the Node the runner replays use (test/runners checks this machine's major against it)", () => {
    const versions = new Set<string>();
    for (const job of Object.values(ci.jobs)) {
      for (const step of job.steps)
        if (step.uses?.startsWith("actions/setup-node@")) versions.add(String((step as { with?: { "node-version"?: unknown } }).with?.["node-version"]));
    }
    expect([...versions]).toEqual(["20"]);
    expect(runners).toContain("node-version: ");
  });
});

describe("tests that put a Node into a prefix", () => {
  it("take the pinned Node from the toolchain, never the Node running the test (setup-node's Node 20 has no http.setGlobalProxyFromEnv for the engine)", () => {
    for (const dir of ["wine", "windows", "lanes"]) {
      for (const name of readdirSync(join(REPO_ROOT, "test", dir)).filter((n) => n.endsWith(".ts"))) {
        const text = readFileSync(join(REPO_ROOT, "test", dir, name), "utf8");
        expect(text, `test/${dir}/${name} copies the Node that runs it`).not.toMatch(/copyFile\((process\.)?execPath/);
      }
    }
  });
});
