/**
 * Everything the daemon says on IRC goes out here: the agent's own lines (recorded in the
 * message buffer under the conversation's key, counted by the agent-chain guard and noted as
 * the current turn's targets) and the daemon's short lines (refusals, alerts, answers to
 * operator commands), which never throw.
 */
import type { MessageBuffer } from "../buffer/message-buffer.js";
import { errorMessage } from "../errors.js";
import type { IrcTransport } from "../irc/irc-transport.js";
import type { Logger } from "../logger.js";
import type { AgentChainGuard } from "./agent-chain.js";
import type { TurnLoop } from "./turn-loop.js";

/** What {@link DaemonVoice} needs. */
export interface DaemonVoiceOptions {
  nick: string;
  logger: Logger;
  chain: AgentChainGuard;
  loop: TurnLoop;
  /** The transport once started. */
  transport(): IrcTransport | undefined;
  /** The message buffer once started. */
  buffer(): MessageBuffer;
}

/** The daemon's way out to IRC. */
export class DaemonVoice {
  constructor(private readonly o: DaemonVoiceOptions) {}

  /** Sends as the agent: recorded in the buffer and in the current turn's targets. */
  asAgent(target: string, text: string): { queued: boolean; lines: number } {
    const transport = this.o.transport();
    if (!transport) throw new Error("the IRC transport is not started");
    const result = transport.say(target, text);
    this.o.buffer().add(transport.conversationKey(target), { nick: transport.nick, text, timestamp: Date.now() / 1000 });
    if (transport.isChannel(target)) this.o.chain.observe(target, this.o.nick);
    this.o.loop.noteSentTo(target);
    return result;
  }

  /** A PRIVMSG from the daemon (refusals, alerts, answers to commands): never throws. */
  say(target: string, text: string): void {
    try {
      this.o.transport()?.say(target, text);
    } catch (err) {
      this.o.logger.warn(`could not send to ${target}: ${errorMessage(err)}`);
    }
  }

  /** A NOTICE from the daemon: never throws. */
  notice(target: string, text: string): void {
    try {
      this.o.transport()?.notice(target, text);
    } catch (err) {
      this.o.logger.warn(`could not send to ${target}: ${errorMessage(err)}`);
    }
  }
}
