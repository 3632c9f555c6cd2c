/**
 * Promises waiting for a server's confirmation of something named (our JOIN or PART echo of a
 * channel), each with its own timeout. Several callers may wait for the same key (two joins of
 * one channel send one JOIN); they all settle together. Keys are whatever the caller uses
 * (folded channel names in the transport).
 */

interface Waiter {
  resolve: () => void;
  reject: (err: Error) => void;
  timer: NodeJS.Timeout;
}

/** Waiters by key, settled by the caller when the server confirms or refuses. */
export class KeyedWaiters {
  private readonly waiting = new Map<string, Waiter[]>();

  /**
   * Waits for `key` to be settled; after `timeoutMs` this waiter alone is removed and rejects
   * with the error `onTimeout` returns.
   */
  wait(key: string, timeoutMs: number, onTimeout: () => Error): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      const waiter: Waiter = {
        resolve,
        reject,
        timer: setTimeout(() => {
          const list = this.waiting.get(key);
          if (list) {
            list.splice(list.indexOf(waiter), 1);
            if (list.length === 0) this.waiting.delete(key);
          }
          reject(onTimeout());
        }, timeoutMs),
      };
      const list = this.waiting.get(key) ?? [];
      list.push(waiter);
      this.waiting.set(key, list);
    });
  }

  /** How many wait for `key`. */
  count(key: string): number {
    return this.waiting.get(key)?.length ?? 0;
  }

  /** Resolves every waiter of `key`, or rejects them with `err`. */
  settle(key: string, err?: Error): void {
    const waiters = this.waiting.get(key);
    if (!waiters) return;
    this.waiting.delete(key);
    for (const w of waiters) {
      clearTimeout(w.timer);
      if (err) w.reject(err);
      else w.resolve();
    }
  }

  /** Settles every waiter of every key: resolves them, or rejects them with `err`. */
  settleAll(err?: Error): void {
    for (const key of [...this.waiting.keys()]) this.settle(key, err);
  }
}
