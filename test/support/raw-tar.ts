/**
 * A raw .tar.gz written member by member with tar's Header, so tests can make
 * exactly the hostile shapes real archives may carry (../x, absolute paths,
 * links, devices, FIFOs) that a normal packer refuses to write.
 */
import { gzipSync } from "node:zlib";
import { Header } from "tar";

export interface RawMember {
  path: string;
  type?: "File" | "Directory" | "SymbolicLink" | "Link" | "CharacterDevice" | "FIFO";
  body?: string;
  /** Default: 0755 for folders, 0644 for everything else. */
  mode?: number;
  linkpath?: string;
}

export function rawTarGz(members: RawMember[]): Buffer {
  const blocks: Buffer[] = [];
  for (const m of members) {
    const body = Buffer.from(m.body ?? "");
    const type = m.type ?? "File";
    const block = Buffer.alloc(512);
    new Header({
      path: m.path,
      type,
      size: type === "File" ? body.length : 0,
      mode: m.mode ?? (type === "Directory" ? 0o755 : 0o644),
      mtime: new Date(0),
      uid: 0,
      gid: 0,
      linkpath: m.linkpath,
    }).encode(block, 0);
    blocks.push(block);
    if (type === "File" && body.length) blocks.push(body, Buffer.alloc((512 - (body.length % 512)) % 512));
  }
  blocks.push(Buffer.alloc(1024));
  return gzipSync(Buffer.concat(blocks));
}
