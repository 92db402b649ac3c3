import { type Dispatcher, request } from "undici";
import type { Json } from "./server";

export interface WatchEventLine {
  type: string;
  object: Json;
}

export interface OpenWatch {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  /** Every event received so far, in order. */
  events: WatchEventLine[];
  /** The raw text received so far. */
  text(): string;
  /** Resolves with the first event (from `from` on) that satisfies `predicate`; rejects after `timeoutMs`. */
  next(
    predicate?: (event: WatchEventLine) => boolean,
    options?: { timeoutMs?: number; from?: number },
  ): Promise<WatchEventLine>;
  /** Resolves when the server ends the stream. */
  ended: Promise<void>;
  /** The client goes away. */
  close(): void;
  /** The body when the answer is not a stream (an error Status). */
  body(): Promise<Json>;
}

/** Opens a watch (or any streaming GET) and collects its newline-delimited JSON events as they arrive. */
export async function openWatch(
  baseUrl: string,
  path: string,
  headers: Record<string, string> = {},
  dispatcher?: Dispatcher,
): Promise<OpenWatch> {
  const response = await request(`${baseUrl}${path}`, { method: "GET", headers, dispatcher });
  const events: WatchEventLine[] = [];
  const waiters = new Set<() => void>();
  let raw = "";
  let buffered = "";
  let done = false;
  const notify = () => {
    for (const waiter of [...waiters]) waiter();
  };
  if (response.statusCode !== 200) {
    const text = await response.body.text();
    return {
      status: response.statusCode,
      headers: response.headers,
      events,
      text: () => text,
      next: () => Promise.reject(new Error(`no stream: ${response.statusCode} ${text}`)),
      ended: Promise.resolve(),
      close: () => {},
      body: async () => JSON.parse(text),
    };
  }
  const ended = (async () => {
    try {
      for await (const chunk of response.body) {
        const text = chunk.toString("utf8");
        raw += text;
        buffered += text;
        let newline = buffered.indexOf("\n");
        while (newline !== -1) {
          const line = buffered.slice(0, newline);
          buffered = buffered.slice(newline + 1);
          if (line.trim() !== "") events.push(JSON.parse(line));
          newline = buffered.indexOf("\n");
        }
        notify();
      }
    } catch {
      // The client closed it.
    } finally {
      done = true;
      notify();
    }
  })();
  return {
    status: response.statusCode,
    headers: response.headers,
    events,
    text: () => raw,
    next: (predicate = () => true, { timeoutMs = 5000, from = 0 } = {}) =>
      new Promise((resolve, reject) => {
        const check = () => {
          const found = events.slice(from).find(predicate);
          if (found) {
            cleanup();
            resolve(found);
          } else if (done) {
            cleanup();
            reject(
              new Error(
                `the watch ended without the event; got ${JSON.stringify(events.map((e) => e.type))}`,
              ),
            );
          }
        };
        const timer = setTimeout(() => {
          cleanup();
          reject(new Error(`no such event within ${timeoutMs} ms; got ${raw}`));
        }, timeoutMs);
        const cleanup = () => {
          clearTimeout(timer);
          waiters.delete(check);
        };
        waiters.add(check);
        check();
      }),
    ended,
    close: () => response.body.destroy(),
    body: async () => {
      throw new Error("a stream has no single body");
    },
  };
}
