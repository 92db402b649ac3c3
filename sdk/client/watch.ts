import type { Readable } from "node:stream";
import type { ApiError } from "../errors";

/** What a watch line says happened; a BOOKMARK only carries the resourceVersion the watch has reached. */
export type WatchEventType = "ADDED" | "MODIFIED" | "DELETED" | "BOOKMARK";

export interface WatchEvent<T> {
  type: WatchEventType;
  object: T;
}

export interface WatchOptions {
  /** Start after this version (the server replays what followed it); without it, the current objects come first. */
  resourceVersion?: string;
  /** Ask for BOOKMARK events, which let a resumed watch start at a more recent version. */
  allowWatchBookmarks?: boolean;
  /** The server ends the watch after this long (it may end it earlier); the caller resumes it. */
  timeoutSeconds?: number;
  labelSelector?: string;
  fieldSelector?: string;
  /** Ends the watch (the connection is closed). */
  signal?: AbortSignal;
}

/** An open watch: its events in resourceVersion order until the server ends it or `close` ends it (quietly). */
export interface WatchStream<T> extends AsyncIterable<WatchEvent<T>> {
  close(): void;
}

/**
 * The events of a watch body, one JSON object per line. An `ERROR` event (Kubernetes sends one, with a
 * Status, when a watch cannot go on, e.g. 410 Expired) throws what `errorOf` makes of its Status; a body
 * that breaks off throws the transport's error; a body the server ends cleanly ends the iteration.
 */
export function watchStream<T>(
  body: Readable,
  errorOf: (status: { code?: unknown }) => ApiError,
): WatchStream<T> {
  let closed = false;
  return {
    close: () => {
      closed = true;
      body.destroy();
    },
    async *[Symbol.asyncIterator]() {
      try {
        body.setEncoding("utf8");
        let buffered = "";
        for await (const chunk of body as AsyncIterable<string>) {
          buffered += chunk;
          let newline = buffered.indexOf("\n");
          while (newline !== -1) {
            const line = buffered.slice(0, newline).trim();
            buffered = buffered.slice(newline + 1);
            if (line !== "") yield parseEvent<T>(line, errorOf);
            newline = buffered.indexOf("\n");
          }
        }
        if (buffered.trim() !== "") yield parseEvent<T>(buffered.trim(), errorOf);
      } catch (error) {
        // Closed by the caller: the iteration just ends.
        if (!closed) throw error;
      } finally {
        body.destroy();
      }
    },
  };
}

function parseEvent<T>(line: string, errorOf: (status: { code?: unknown }) => ApiError): WatchEvent<T> {
  const event = JSON.parse(line) as { type?: unknown; object?: unknown };
  if (event.type === "ERROR") throw errorOf((event.object ?? {}) as { code?: unknown });
  if (
    event.type !== "ADDED" &&
    event.type !== "MODIFIED" &&
    event.type !== "DELETED" &&
    event.type !== "BOOKMARK"
  ) {
    throw new Error(`a watch sent an event of unknown type ${JSON.stringify(event.type)}`);
  }
  return event as WatchEvent<T>;
}
