/**
 * stageBoth (src/install/runtime/both-at-once.ts): the order in which Node's and pnpm's stagings and checks may
 * run, held with steps the test releases one by one, so no timing decides what it sees.
 */
import { describe, expect, it } from "vitest";
import { stageBoth, type BothSteps, type StagedFolder } from "../../../src/install/runtime/both-at-once";

function later<T = void>() {
  let resolve!: (value: T) => void;
  let reject!: (error: Error) => void;
  const promise = new Promise<T>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}

/** Steps whose stagings and checks end when the test says; `log` lists what started and ended, in order. */
function steps() {
  const log: string[] = [];
  const node = later<StagedFolder>();
  const pnpm = later<StagedFolder>();
  const nodeCheck = later<string>();
  const pnpmCheck = later<string>();
  let executable: (dir: string) => void = () => undefined;
  const s: BothSteps<StagedFolder, string> = {
    stageNode: () => node.promise,
    stagePnpm: () => pnpm.promise,
    checkNode: (n) => {
      log.push(`check node in ${n.dir}`);
      return nodeCheck.promise;
    },
    checkPnpm: (p, nodeDir) => {
      log.push(`check pnpm in ${p.dir} on ${nodeDir}`);
      return pnpmCheck.promise.finally(() => log.push("pnpm check ended"));
    },
    publish: async (n, nm, p, pm) => {
      log.push(`publish ${n.dir}=${nm} ${p.dir}=${pm}`);
      return "published";
    },
    remove: async (dir) => void log.push(`remove ${dir}`),
  };
  /** The steps for stageBoth, keeping the call that says node's executable is whole. */
  const make = (whole: (dir: string) => void) => {
    executable = whole;
    return s;
  };
  return { make, log, node, pnpm, nodeCheck, pnpmCheck, executable: (dir: string) => executable(dir) };
}

const turn = () => new Promise((r) => setTimeout(r, 0));

describe("Node and pnpm staged together", () => {
  it("runs pnpm's check on node's executable as soon as it is whole, before node's folder is complete", async () => {
    const t = steps();
    const done = stageBoth(t.make);
    t.pnpm.resolve({ dir: "P" });
    await turn();
    expect(t.log).toEqual([]);
    t.executable("N");
    await turn();
    expect(t.log).toEqual(["check pnpm in P on N"]);
    t.pnpmCheck.resolve("pnpm-marker");
    t.node.resolve({ dir: "N" });
    await turn();
    expect(t.log).toEqual(["check pnpm in P on N", "pnpm check ended", "check node in N"]);
    t.nodeCheck.resolve("node-marker");
    expect(await done).toBe("published");
    expect(t.log.slice(3)).toEqual(["publish N=node-marker P=pnpm-marker", "remove N", "remove P"]);
  });

  it("from an archive that never says its executable is whole (a zip), waits for node's whole folder", async () => {
    const t = steps();
    const done = stageBoth(t.make);
    t.pnpm.resolve({ dir: "P" });
    await turn();
    expect(t.log).toEqual([]);
    t.node.resolve({ dir: "N" });
    await turn();
    // Both checks now, in either order.
    expect([...t.log].sort()).toEqual(["check node in N", "check pnpm in P on N"]);
    t.pnpmCheck.resolve("p");
    t.nodeCheck.resolve("n");
    expect(await done).toBe("published");
  });

  it("a node archive that fails after its executable was whole: node's error, once pnpm's running check has ended, and both folders go", async () => {
    const t = steps();
    const done = stageBoth(t.make).then(
      () => "resolved",
      (e: Error) => {
        t.log.push(`failed: ${e.message}`);
        return e.message;
      },
    );
    t.pnpm.resolve({ dir: "P" });
    t.executable("N");
    await turn();
    t.node.reject(new Error("the archive holds a member outside its folder"));
    await turn();
    // pnpm's check is still running on node's executable: nothing is removed, nothing reported yet.
    expect(t.log).toEqual(["check pnpm in P on N"]);
    t.pnpmCheck.reject(new Error("pnpm printed nothing"));
    expect(await done).toBe("the archive holds a member outside its folder");
    expect(t.log).toEqual(["check pnpm in P on N", "pnpm check ended", "remove P", "failed: the archive holds a member outside its folder"]);
  });

  it("a pnpm check that fails publishes nothing, and node's check is still awaited before the folders go", async () => {
    const t = steps();
    const done = stageBoth(t.make).catch((e: Error) => e.message);
    t.pnpm.resolve({ dir: "P" });
    t.node.resolve({ dir: "N" });
    await turn();
    t.pnpmCheck.reject(new Error("pnpm 0.0.0 printed 11.1.1"));
    await turn();
    expect(t.log.some((l) => l.startsWith("remove"))).toBe(false);
    t.nodeCheck.resolve("n");
    expect(await done).toBe("pnpm 0.0.0 printed 11.1.1");
    expect(t.log.filter((l) => l.startsWith("publish"))).toEqual([]);
    expect(t.log.slice(-2)).toEqual(["remove N", "remove P"]);
  });
});
