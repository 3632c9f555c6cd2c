/** Making a {@link PromptOrigin}: every prompt the daemon queues gets one, with a fresh id. */
import { randomUUID } from "node:crypto";
import type { PromptOrigin } from "../events.js";

/** A new origin of kind `kind` (the id is a fresh UUID). */
export function newOrigin(kind: PromptOrigin["kind"], channel: string | null, sender: string | null, replyTo: string | null, text: string, account: string | null = null): PromptOrigin {
  return { id: randomUUID(), kind, channel, sender, replyTo, text, account };
}
