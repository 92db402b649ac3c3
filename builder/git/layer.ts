// A directory as one reproducible layer: entries sorted by path, fixed mtime (the epoch), owner 0:0 with
// no names, modes 0755 (directories, executables) or 0644, no `.git`; gzip with a zero header time. The
// same tree always gives the same bytes, so the same digest. A symlink must stay inside the directory.
import { lstat, readdir, readFile, readlink, realpath } from "node:fs/promises";
import { isAbsolute, join, posix, relative, sep } from "node:path";
import { promisify } from "node:util";
import { gzip } from "node:zlib";
import { type Header, pack } from "tar-stream";
import { BuildFailure, sizeText } from "./failure";

const gzipAsync = promisify(gzip);

const EPOCH = new Date(0);
const FIXED = { mtime: EPOCH, uid: 0, gid: 0, uname: "", gname: "" } as const;

interface Entry {
  /** Path inside the layer, `/`-separated, no leading `./`. */
  path: string;
  header: Partial<Header> & Pick<Header, "name">;
  content?: Buffer;
}

export interface Layer {
  /** The gzipped tar. */
  data: Buffer;
  files: number;
}

function escapes(path: string): boolean {
  return path === ".." || path.startsWith("../") || isAbsolute(path);
}

function isInside(root: string, path: string): boolean {
  const rel = relative(root, path);
  return rel === "" || (!rel.startsWith(`..${sep}`) && rel !== ".." && !isAbsolute(rel));
}

/** Checks a symlink's target leads to a place inside the packaged directory, lexically and on disk. */
async function checkSymlink(root: string, realRoot: string, path: string, target: string): Promise<void> {
  const lexical = posix.normalize(posix.join(posix.dirname(path), target));
  let outside = isAbsolute(target) || escapes(lexical);
  if (!outside) {
    // Through other symlinks the lexical answer can be wrong; where the target exists, ask the disk.
    const real = await realpath(join(root, path)).catch(() => undefined);
    outside = real !== undefined && !isInside(realRoot, real);
  }
  if (outside) {
    throw new BuildFailure(
      `the symlink ${path} points to "${target}", outside the directory being packaged; nothing outside it is packaged: make the link relative and inside rootDir, or copy the file into it`,
    );
  }
}

async function collect(root: string, realRoot: string, dir: string, maxBytes: number): Promise<Entry[]> {
  const entries: Entry[] = [];
  let bytes = 0;
  const walk = async (relDir: string): Promise<void> => {
    for (const name of await readdir(join(root, relDir))) {
      if (name === ".git") continue;
      const path = relDir === "" ? name : `${relDir}/${name}`;
      const stats = await lstat(join(root, path));
      if (stats.isDirectory()) {
        entries.push({ path, header: { name: `${path}/`, type: "directory", mode: 0o755, ...FIXED } });
        await walk(path);
      } else if (stats.isSymbolicLink()) {
        const target = await readlink(join(root, path));
        await checkSymlink(root, realRoot, path, target);
        entries.push({
          path,
          header: { name: path, type: "symlink", linkname: target, mode: 0o777, ...FIXED },
        });
      } else if (stats.isFile()) {
        bytes += stats.size;
        if (bytes > maxBytes) {
          throw new BuildFailure(
            `${dir} holds more than ${sizeText(maxBytes)} of files, the server's limit; package a smaller directory or start the server with a larger --git-max-clone-size`,
          );
        }
        const mode = stats.mode & 0o100 ? 0o755 : 0o644;
        const content = await readFile(join(root, path));
        entries.push({
          path,
          header: { name: path, type: "file", mode, size: content.length, ...FIXED },
          content,
        });
      } else {
        throw new BuildFailure(`${path} in ${dir} is neither a file, a directory nor a symlink; remove it`);
      }
    }
  };
  await walk("");
  return entries;
}

/** Packages `root` (described as `dir` in messages); fails on an escaping symlink or a special file. */
export async function packDirectory(root: string, dir: string, maxBytes: number): Promise<Layer> {
  const realRoot = await realpath(root);
  const entries = await collect(root, realRoot, dir, maxBytes);
  // Code-unit order of the path: stable whatever order the file system lists a directory in.
  entries.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  const tar = pack();
  const chunks: Buffer[] = [];
  tar.on("data", (chunk: unknown) => void chunks.push(chunk as Buffer));
  const ended = new Promise<void>((resolve, reject) => {
    tar.once("end", resolve);
    tar.once("error", reject);
  });
  for (const entry of entries) {
    await new Promise<void>((resolve, reject) => {
      tar.entry(entry.header, entry.content ?? Buffer.alloc(0), (error) =>
        error ? reject(error) : resolve(),
      );
    });
  }
  tar.finalize();
  await ended;
  // Node's gzip header has mtime 0 and no file name: the bytes depend on the tar alone.
  const data = await gzipAsync(Buffer.concat(chunks), { level: 9 });
  return { data, files: entries.filter((entry) => entry.header.type !== "directory").length };
}
