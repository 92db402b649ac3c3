import { closeSync, fdatasync, fdatasyncSync, fstatSync, openSync, statSync } from "node:fs";
import { promisify } from "node:util";

const fdatasyncAsync = promisify(fdatasync);

/**
 * Flushes one file's data to the disk (`fdatasync`: the data, and the size when it grew; not the times),
 * through a descriptor kept open, so a sync costs one trip to libuv's thread pool and no `open`. The file
 * must exist; a file replaced under the same path (another inode) is opened again before it is synced.
 */
export class FileSync {
  private fd: number | undefined;
  private inode: number | undefined;

  constructor(private readonly path: string) {}

  /** Off the event loop: everything written to the file before the call is on the disk when it resolves. */
  async sync(): Promise<void> {
    await fdatasyncAsync(this.current());
  }

  /** The same, blocking (on close). */
  syncNow(): void {
    fdatasyncSync(this.current());
  }

  close(): void {
    if (this.fd !== undefined) closeSync(this.fd);
    this.fd = undefined;
  }

  private current(): number {
    const inode = statSync(this.path).ino;
    if (this.fd === undefined || inode !== this.inode) {
      this.close();
      this.fd = openSync(this.path, "r");
      this.inode = fstatSync(this.fd).ino;
    }
    return this.fd;
  }
}
