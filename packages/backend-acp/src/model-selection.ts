/**
 * Stable ACP v1 has no `model` in `session/new`: an agent that lets the client pick one
 * offers a session config option (category `model`, or id `model`) and the client sets it
 * with `session/set_config_option`. An agent without one keeps its own default, with a warning.
 */
import * as acp from "@agentclientprotocol/sdk";
import type { SessionConfigOption } from "@agentclientprotocol/sdk";
import { errorMessage, type Logger } from "@culture/core";
import type { AcpAgentProcess } from "./acp-agent-process.js";

/** The session's model selector, when the agent offers one. */
export function findModelOption(options: readonly SessionConfigOption[]): SessionConfigOption | undefined {
  return options.find((o) => o.category === "model") ?? options.find((o) => o.id === "model");
}

/**
 * Sets the session's model to `wanted` (matched by value, else by name, case-insensitively).
 * Returns the session's config options afterwards. A model the agent does not offer, or a
 * selector it does not have, is a warning, not an error: the agent keeps its default.
 */
export async function selectModel(
  proc: AcpAgentProcess,
  sessionId: string,
  options: SessionConfigOption[],
  wanted: string | null,
  logger: Logger,
): Promise<SessionConfigOption[]> {
  if (!wanted) return options;
  const option = findModelOption(options);
  if (!option || option.type !== "select") {
    logger.warn(`the agent offers no model selector (session config option); the model "${wanted}" is ignored`);
    return options;
  }
  const values = option.options.flatMap((entry) => ("group" in entry ? entry.options : [entry]));
  const match = values.find((v) => v.value === wanted) ?? values.find((v) => v.name.toLowerCase() === wanted.toLowerCase());
  if (!match) {
    logger.warn(`the agent does not offer the model "${wanted}"; it keeps "${option.currentValue}"`, {
      offered: values.map((v) => v.value),
    });
    return options;
  }
  if (option.currentValue === match.value) return options;
  try {
    const result = await proc.request(acp.methods.agent.session.setConfigOption, {
      sessionId,
      configId: option.id,
      value: match.value,
    });
    logger.info("selected the model", { model: match.value });
    return result.configOptions;
  } catch (err) {
    if (proc.exitCode !== null) throw err;
    logger.warn(`could not set the model "${match.value}": ${errorMessage(err)}`);
    return options;
  }
}
