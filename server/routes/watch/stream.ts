import { Readable } from "node:stream";
import type { WatchOutput } from "../../resources/watch";

/** Consecutive lines up to this size leave in one write (one chunk, one system call); larger ones alone. */
const WRITE_BYTES = 64 * 1024;

/**
 * When the watches' queued lines go out. A watch whose client is reading gets them at once when the server
 * is quiet; under a stream of events, every watch's lines leave together at most once per interval, so a
 * write to a socket carries many events instead of one: with a thousand watches, one write per watch and
 * event is what costs the server its throughput (Kubernetes' API server has a goroutine per watch for it).
 * The interval grows with the number of watches (`interval()`), so a round of writes stays a bounded share
 * of the server's time: a few watches see events within milliseconds, a thousand within a tenth of a second.
 */
export class FlushScheduler {
  private readonly dirty = new Set<WatchStream>();
  private timer: NodeJS.Timeout | NodeJS.Immediate | undefined;
  private last = 0;

  constructor(private readonly interval: () => number) {}

  schedule(stream: WatchStream): void {
    this.dirty.add(stream);
    if (this.timer !== undefined) return;
    const wait = this.last + this.interval() - performance.now();
    const run = () => this.flush();
    this.timer = wait > 0 ? setTimeout(run, wait) : setImmediate(run);
  }

  private flush(): void {
    this.timer = undefined;
    this.last = performance.now();
    const streams = [...this.dirty];
    this.dirty.clear();
    for (const stream of streams) stream.flush();
  }
}

/**
 * The body of a watch: the events it starts with, encoded as the client takes them, then a queue of lines
 * counted in events and bytes, that goes out as fast as the client reads (Node's stream buffers in front
 * of the socket stay at their high-water mark; what is beyond waits here, where it is counted). Fastify
 * pipes it into the response; its first read means the headers are set, and they are flushed then, so a
 * client sees 200 before the first event. Destroying it (the client went away, fastify destroys the body)
 * releases the watch.
 */
export class WatchStream extends Readable {
  private initial: readonly WatchOutput[] = [];
  private initialAt = 0;
  private readonly queue: Buffer[] = [];
  /** A line taken that did not fit the last write. */
  private carried: Buffer | undefined;
  private started = false;
  private wanted = false;
  private ending = false;
  /** Bytes of the lines in `queue`. */
  private lineBytes = 0;
  /** Bytes pushed into this stream since it started (what left it for the response, or waits in it). */
  private pushedBytes = 0;

  constructor(
    private readonly encode: (event: WatchOutput) => Buffer,
    private readonly scheduler: FlushScheduler,
    private readonly onStart: () => void,
    private readonly onDestroy: () => void,
    /** Bytes the response holds beyond this stream: its own buffer and its socket's (`writableLength`). */
    private readonly held: () => number = () => 0,
  ) {
    super();
  }

  /**
   * Events encoded and waiting for the client: the queued lines and the one carried over. The initial events
   * are encoded as the client takes them (each write is one of them or up to 64 kB of them), so what they
   * hold is in `queuedBytes`; those not encoded yet are references to stored objects every watch shares.
   */
  get queuedEvents(): number {
    return this.queue.length + (this.carried === undefined ? 0 : 1);
  }

  /**
   * Bytes this watch holds for its client, the initial events included: its queue, the line carried over,
   * this stream's buffer and the response's (all that Node holds before the kernel's socket buffer).
   */
  get queuedBytes(): number {
    return this.lineBytes + (this.carried?.length ?? 0) + this.readableLength + this.held();
  }

  /** Initial events not sent yet. */
  get initialLeft(): number {
    return this.initial.length - this.initialAt;
  }

  /** Bytes handed to the kernel so far: grows while the client reads, stays while it does not. */
  get sentBytes(): number {
    return this.pushedBytes - this.readableLength - this.held();
  }

  /** Whether anything waits to be sent: queued, initial events left, or in Node's buffers. */
  get waiting(): boolean {
    return this.initialLeft > 0 || this.queuedEvents > 0 || this.queuedBytes > 0;
  }

  /** Forgets the initial events not sent yet: the watch fell behind and ends. */
  dropBacklog(): void {
    this.initial = [];
    this.initialAt = 0;
  }

  backlog(events: readonly WatchOutput[]): void {
    this.initial = events;
    this.initialAt = 0;
    this.scheduler.schedule(this);
  }

  enqueue(line: Buffer): void {
    if (this.ending) return;
    this.queue.push(line);
    this.lineBytes += line.length;
    this.scheduler.schedule(this);
  }

  /**
   * Ends the body once what is queued has gone out. At once, not at the next scheduled flush: on the
   * server's graceful close, a connection must be idle by the time the server closes idle connections.
   */
  endAfterQueue(): void {
    this.ending = true;
    this.flush();
  }

  /** Sends what is queued, as far as the client takes it. */
  flush(): void {
    while (this.wanted) {
      const chunk = this.next();
      if (chunk === undefined) {
        if (this.ending) {
          this.wanted = false;
          this.push(null);
        }
        return;
      }
      this.pushedBytes += chunk.length;
      this.wanted = this.push(chunk);
    }
  }

  override _read(): void {
    if (!this.started) {
      this.started = true;
      this.onStart();
    }
    this.wanted = true;
    this.flush();
  }

  /**
   * The next write: the initial events first, then queued lines; small ones are joined up to WRITE_BYTES,
   * a larger one leaves alone (never copied: it is the line every watch shares).
   */
  private next(): Buffer | undefined {
    const lines: Buffer[] = [];
    let bytes = 0;
    for (;;) {
      const line = this.carried ?? this.takeLine();
      this.carried = undefined;
      if (line === undefined) break;
      if (lines.length > 0 && bytes + line.length > WRITE_BYTES) {
        this.carried = line;
        break;
      }
      lines.push(line);
      bytes += line.length;
      if (bytes >= WRITE_BYTES) break;
    }
    return lines.length <= 1 ? lines[0] : Buffer.concat(lines, bytes);
  }

  private takeLine(): Buffer | undefined {
    const event = this.initial[this.initialAt];
    if (event !== undefined) {
      this.initialAt++;
      return this.encode(event);
    }
    const line = this.queue.shift();
    if (line !== undefined) this.lineBytes -= line.length;
    return line;
  }

  override _destroy(error: Error | null, callback: (error?: Error | null) => void): void {
    this.initial = [];
    this.carried = undefined;
    this.queue.length = 0;
    this.lineBytes = 0;
    this.onDestroy();
    callback(error);
  }
}
