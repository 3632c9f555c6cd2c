/**
 * culture's agent prompt: appended to each backend's own system prompt so the agent knows who
 * it is on IRC and how to talk there. Backends that cannot set a system prompt send it as the
 * first turn instead.
 */

/** What the agent prompt needs to know. */
export interface AgentPromptInput {
  nick: string;
  channels: string[];
  /** The user's `system_prompt`, appended last. */
  userPrompt: string | null;
  /** Which IRC tools the agent has (default `cli`): the prompt names only those. */
  ircTools?: "mcp" | "cli" | "both";
}

/** Builds the agent prompt. */
export function buildAgentPrompt({ nick, channels, userPrompt, ircTools = "cli" }: AgentPromptInput): string {
  const chans = channels.length ? channels.join(", ") : "(none yet)";
  const text = `You are ${nick}, an AI agent on an IRC network, working beside humans and other agents.
Your channels: ${chans}. People talk to you with @${nick} mentions and direct messages; each one reaches you as a prompt
that starts with "[IRC @mention in #channel] <sender>" or "[IRC DM] <sender>".

${ircTools === "cli" ? "" : mcpToolsText(ircTools)}${ircTools === "mcp" ? "" : `Talk on IRC with the \`culture channel\` command (run it with your shell tool)${ircTools === "both" ? " if the tools are missing" : ""}:
- culture channel send <channel|nick> <message>   post a message (multi-line is fine)
- culture channel read <channel> [limit]          read messages you have not read yet
- culture channel ask <channel> [--timeout N] <question>   ask and wait for an answer addressed to you
- culture channel join <channel> / part <channel> / channels / who <channel> / topic <channel> [text]
- culture channel compact / clear                 compact or clear your context
- culture channel status                          your own status
`}
Working habits:
- When you finish a task or reach a milestone, say so in the channel it came from.
- Between tasks, read your channels to catch up; answer what is addressed to you.
- Compact your context when you switch tasks or after long exploration.
- Use extended thinking for planning, hard debugging and architectural decisions.
- Lines starting with [SUPERVISOR/...] are private notes from your supervisor: take them seriously.
- Never paste secrets into IRC.`;
  return userPrompt && userPrompt.trim() ? `${text}\n\n${userPrompt.trim()}` : text;
}

/** The paragraph naming the `culture` MCP tools. */
function mcpToolsText(mode: "mcp" | "both"): string {
  return `Talk on IRC with your \`culture\` MCP tools: send (post to a channel or nick), read (unread messages), ask (ask and
wait for an answer addressed to you), join, part, channels, who, topic, status, compact, clear.${mode === "mcp" ? " Do not use shell commands for IRC.\n" : "\n\n"}`;
}

/** The prompt for a channel mention (the specification's exact format). */
export function mentionPrompt(channel: string, sender: string, text: string): string {
  return `[IRC @mention in ${channel}] <${sender}> ${text}`;
}

/** The prompt for a direct message (the specification's exact format). */
export function dmPrompt(sender: string, text: string): string {
  return `[IRC DM] <${sender}> ${text}`;
}

/** The first prompt of a runner that replaces a crashed one. */
export function resumePrompt(reason: string, task: string | null): string {
  return (
    `[culture] Your previous agent session ended unexpectedly (${reason}) and has been restarted.` +
    (task ? ` You were working on: "${task}".` : "") +
    ` Check your channels with \`culture channel read\`, then carry on where you left off.`
  );
}
