// Runs tasks with the same key one after another. Pushes of one image by two Services at once race in the
// registry (docker-registry answered a manifest PUT with MANIFEST_BLOB_UNKNOWN while the other push was
// linking the same blob), so the pushes to one repository take turns.
export class KeyedLock {
  private readonly tails = new Map<string, Promise<unknown>>();

  async run<T>(key: string, task: () => Promise<T>): Promise<T> {
    const before = this.tails.get(key) ?? Promise.resolve();
    const result = before.catch(() => undefined).then(task);
    const tail = result.catch(() => undefined);
    this.tails.set(key, tail);
    try {
      return await result;
    } finally {
      if (this.tails.get(key) === tail) this.tails.delete(key);
    }
  }
}
