/**
 * Shared by the Windows private folder tests (rule, adapter): the accounts,
 * folders and rights they use, and FakeWindows, an in-memory adapter that
 * models folders, owners and DACLs and logs every call.
 */
import { FULL_CONTROL, SID, type WindowsAce, type WindowsFolderState, type WindowsPrivateFolderAdapter } from "../../../src/install/windows-private/rule";
import { windowsProcessFailure } from "../../../src/io/windows-process/failure";

export const USER = "S-1-5-21-1111111111-2222222222-3333333333-1001";
export const OTHER = "S-1-5-21-1111111111-2222222222-3333333333-1002";
export const EVERYONE = "S-1-1-0";
export const USERS = "S-1-5-32-545";
export const AUTHENTICATED = "S-1-5-11";

export const PROFILE = "C:\\Users\\alice";
export const LOCAL = "C:\\Users\\alice\\AppData\\Local";
export const FIRST = "C:\\Users\\alice\\AppData\\Local\\gentle-shell";
export const FALLBACK = "C:\\Users\\alice\\.gentle-shell-bundle";
export const ENV = { LOCALAPPDATA: LOCAL, USERPROFILE: PROFILE };

export const READ_EXECUTE = 0x1200a9;
export const MODIFY = 0x1301bf;

export const full = (sid: string, extra: Partial<WindowsAce> = {}): WindowsAce => ({
  sid,
  allow: true,
  rights: FULL_CONTROL,
  inheritOnly: false,
  inherited: false,
  ...extra,
});
/** What a profile folder grants by default. */
export const profileAces = (): WindowsAce[] => [full(SID.SYSTEM), full(SID.ADMINISTRATORS), full(USER)];

export interface Node {
  kind: "directory" | "file" | "link" | "unreadable";
  owner?: string;
  protected?: boolean;
  aces?: WindowsAce[];
  text?: string;
}

/** An in-memory Windows: folders with owners and DACLs, a call log. */
export class FakeWindows implements WindowsPrivateFolderAdapter {
  nodes = new Map<string, Node>();
  calls: string[] = [];
  /** Lets a test change what mkdir makes (a race with another account). */
  onCreate?: (path: string) => Node | undefined;
  /** Lets a test make setProtectedDacl misbehave. */
  daclWorks = true;
  failInspect?: (path: string) => boolean;

  constructor() {
    this.nodes.set("C:\\Users", { kind: "directory", owner: SID.SYSTEM, protected: true, aces: [full(SID.SYSTEM)] });
    this.nodes.set(PROFILE, { kind: "directory", owner: USER, protected: true, aces: profileAces() });
    this.nodes.set(LOCAL, { kind: "directory", owner: USER, protected: false, aces: profileAces().map((a) => ({ ...a, inherited: true })) });
  }
  async currentUserSid() {
    this.calls.push("whoami");
    return USER;
  }
  async inspect(path: string): Promise<WindowsFolderState> {
    this.calls.push(`inspect ${path}`);
    if (this.failInspect?.(path)) throw windowsProcessFailure({ status: 1, stderr: "boom" });
    const n = this.nodes.get(path);
    if (!n) return { kind: "absent" };
    if (n.kind !== "directory") return { kind: n.kind === "unreadable" ? "unreadable" : n.kind };
    return { kind: "directory", owner: n.owner!, protected: n.protected!, aces: n.aces!.map((a) => ({ ...a })) };
  }
  async createFolder(path: string) {
    this.calls.push(`mkdir ${path}`);
    if (this.nodes.has(path)) return;
    const parent = this.nodes.get(path.slice(0, path.lastIndexOf("\\")));
    if (parent?.kind !== "directory") throw Object.assign(new Error("ENOENT"), { code: "ENOENT" });
    const made = this.onCreate?.(path);
    this.nodes.set(path, made ?? { kind: "directory", owner: USER, protected: false, aces: parent.aces!.map((a) => ({ ...a, inherited: true })) });
  }
  async setProtectedDacl(path: string, sids: readonly string[]) {
    this.calls.push(`dacl ${path} ${sids.join(",")}`);
    const n = this.nodes.get(path)!;
    if (!this.daclWorks) return;
    n.protected = true;
    n.aces = sids.map((sid) => full(sid));
  }
  async readMarker(path: string) {
    this.calls.push(`read ${path}`);
    const n = this.nodes.get(path);
    if (!n) return { kind: "absent" as const };
    if (n.kind !== "file") return { kind: "other" as const };
    return { kind: "file" as const, text: n.text! };
  }
  async writeMarker(path: string, text: string) {
    this.calls.push(`write ${path}`);
    if (this.nodes.has(path)) throw Object.assign(new Error("EEXIST"), { code: "EEXIST" });
    this.nodes.set(path, { kind: "file", text });
  }
  touched(prefix: string) {
    return this.calls.filter((c) => /^(mkdir|dacl|write) /.test(c) && c.split(" ")[1].startsWith(prefix));
  }
}
