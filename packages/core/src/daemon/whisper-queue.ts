/**
 * Supervisor whispers waiting for the agent. One queue, owned by the daemon and read by both
 * delivery paths: the IPC socket (the next `culture channel` call gets them before its first
 * response) and a runner's hook (`RunnerContext.takeWhispers`, e.g. a PostToolUse hook). What
 * one path takes the other never delivers again. Bounded: the newest are kept.
 */
import type { WhisperEvent } from "../events.js";

/** The default number of whispers kept while nobody takes them. */
export const DEFAULT_WHISPER_QUEUE_LIMIT = 100;

/** A bounded FIFO of whispers (newest kept). */
export class WhisperQueue {
  private items: WhisperEvent[] = [];
  private droppedCount = 0;
  private readonly limit: number;

  constructor(limit: number = DEFAULT_WHISPER_QUEUE_LIMIT) {
    this.limit = Math.max(0, limit);
  }

  /** Queues a whisper; drops the oldest when full. */
  push(whisper: WhisperEvent): void {
    this.items.push({ action: whisper.action, message: whisper.message });
    if (this.items.length > this.limit) {
      const over = this.items.length - this.limit;
      this.items.splice(0, over);
      this.droppedCount += over;
    }
  }

  /** Takes every queued whisper, oldest first; the queue is empty afterwards. */
  take(): WhisperEvent[] {
    return this.items.splice(0);
  }

  /** How many are waiting. */
  get length(): number {
    return this.items.length;
  }

  /** How many were dropped because the queue was full (oldest first). */
  get dropped(): number {
    return this.droppedCount;
  }
}
