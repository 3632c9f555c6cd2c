/**
 * `irc_ask` waiters: each waits for the first message addressed to the agent (a mention or a
 * DM) after its question, or its timeout. The oldest waiter gets the next message; a message a
 * waiter takes does not become a prompt.
 */
import { questionText, timeoutText } from "../alerts/alert-texts.js";
import type { AlertEvent } from "../config/schema.js";
import type { IpcResult, IrcMessageEvent } from "../events.js";

interface Waiter {
  resolve: (message: IrcMessageEvent | null) => void;
}

/** The open `irc_ask` waiters. */
export class AskWaiters {
  private waiters: Waiter[] = [];

  /** Waits for the next addressed message, or null after `timeoutMs` or on {@link cancelAll}. */
  wait(timeoutMs: number): Promise<IrcMessageEvent | null> {
    return new Promise((resolve) => {
      const waiter: Waiter = {
        resolve: (m) => {
          clearTimeout(timer);
          resolve(m);
        },
      };
      const timer = setTimeout(() => {
        this.waiters = this.waiters.filter((w) => w !== waiter);
        resolve(null);
      }, timeoutMs);
      this.waiters.push(waiter);
    });
  }

  /**
   * The whole `irc_ask`: `send` says the question, the `agent_question` alert fires, and the
   * answer (or the timeout, with its `agent_timeout` alert) becomes the IPC result.
   */
  async ask(nick: string, question: string, timeoutSeconds: number, send: () => { queued: boolean }, alert: (event: AlertEvent, text: string) => void): Promise<IpcResult> {
    const sent = send();
    alert("agent_question", questionText(nick, question));
    const answer = await this.wait(timeoutSeconds * 1000);
    if (!answer) {
      alert("agent_timeout", timeoutText(nick, question, timeoutSeconds));
      return { ok: true, data: { answer: null, timed_out: true, queued: sent.queued } };
    }
    return {
      ok: true,
      data: { answer: { nick: answer.nick, text: answer.text, timestamp: answer.time / 1000, channel: answer.isDm ? null : answer.target }, timed_out: false },
    };
  }

  /** Hands `message` to the oldest waiter; false when nobody waits. */
  offer(message: IrcMessageEvent): boolean {
    const waiter = this.waiters.shift();
    if (!waiter) return false;
    waiter.resolve(message);
    return true;
  }

  /** Resolves every waiter with null (the daemon is stopping). */
  cancelAll(): void {
    for (const w of this.waiters.splice(0)) w.resolve(null);
  }

  /** How many wait. */
  get size(): number {
    return this.waiters.length;
  }
}
