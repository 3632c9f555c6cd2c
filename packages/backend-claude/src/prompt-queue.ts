/**
 * The streaming input of a long-lived Claude Code session. The SDK's `query()` takes an async
 * iterable of user messages and writes each to the CLI as it is yielded; the session lasts as
 * long as the iterable does. This queue is that iterable: `push()` sends a turn, `end()` ends
 * the input (the SDK then closes the CLI's stdin, and the CLI exits).
 */

/** A single-consumer async queue whose iteration ends after {@link PromptQueue.end}. */
export class PromptQueue<T> implements AsyncIterable<T> {
  private readonly items: T[] = [];
  private wake: (() => void) | null = null;
  private closed = false;

  /** Queues one item for the consumer. Throws after `end()`. */
  push(item: T): void {
    if (this.closed) throw new Error("PromptQueue.push(): the queue has ended");
    this.items.push(item);
    this.notify();
  }

  /** Ends the queue: the consumer gets what is queued, then its iteration finishes. Idempotent. */
  end(): void {
    this.closed = true;
    this.notify();
  }

  /** Whether `end()` was called. */
  get ended(): boolean {
    return this.closed;
  }

  async *[Symbol.asyncIterator](): AsyncIterator<T> {
    for (;;) {
      if (this.items.length > 0) {
        yield this.items.shift() as T;
        continue;
      }
      if (this.closed) return;
      await new Promise<void>((resolve) => {
        this.wake = resolve;
      });
    }
  }

  private notify(): void {
    const wake = this.wake;
    this.wake = null;
    wake?.();
  }
}
