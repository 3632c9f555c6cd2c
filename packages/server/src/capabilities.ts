/**
 * The IRCv3 capabilities this server offers. `msgid` is not a capability: message ids are
 * tags, sent to clients that enabled `message-tags`.
 */

/** Every capability the server implements, in CAP LS order. */
export const CAPABILITIES = [
  "account-tag",
  "away-notify",
  "batch",
  "cap-notify",
  "draft/chathistory",
  "echo-message",
  "extended-join",
  "invite-notify",
  "message-tags",
  "multi-prefix",
  "sasl",
  "server-time",
  "userhost-in-names",
] as const;

/** A capability name. */
export type Capability = (typeof CAPABILITIES)[number];

/** The capabilities on offer: `sasl` only when there are accounts to log in to. */
export function offeredCapabilities(hasAccounts: boolean): Capability[] {
  return CAPABILITIES.filter((c) => c !== "sasl" || hasAccounts);
}

/** The CAP LS 302 value of a capability, or null for none. */
export function capabilityValue(cap: Capability): string | null {
  return cap === "sasl" ? "PLAIN" : null;
}

/** True when `name` is a capability this server offers. */
export function isOffered(name: string, hasAccounts: boolean): name is Capability {
  return (offeredCapabilities(hasAccounts) as string[]).includes(name);
}
