/**
 * Who owns the agents' channels on the embedded server: for every channel in agents.yaml (and
 * the alerts channel), the operators' accounts and the accounts of the agents that sit in it.
 * `culture server start` and `culture start` write this into the server's channel registry
 * (`$CULTURE_HOME/server/channels.json`, see @culture/server's channel-registry.ts), so that
 * nobody else gets ops in an empty agent channel and the agents always get in.
 */
import { LOCAL_HOSTS, type CultureConfig } from "@culture/core/config";
import { serverDir } from "@culture/core/paths";
import { channelRegistryPath, updateChannelRegistry } from "@culture/server/channel-registry";

/** Channel name -> owner accounts, from a config. */
export function channelOwners(config: CultureConfig): Record<string, string[]> {
  const out: Record<string, string[]> = {};
  const byKey = new Map<string, string>();
  const add = (channel: string, accounts: readonly string[]) => {
    const key = channel.toLowerCase();
    const name = byKey.get(key) ?? channel;
    byKey.set(key, name);
    out[name] = [...(out[name] ?? []), ...accounts];
  };
  for (const agent of config.agents) {
    // On the embedded server an agent logs in as the account named like its nick, unless server.sasl says otherwise.
    const account = config.server.sasl?.account ?? agent.nick;
    for (const channel of [...agent.channels, config.webhooks.irc_channel]) add(channel, [account, ...config.operators]);
  }
  for (const name of Object.keys(out)) out[name] = [...new Set(out[name])].sort();
  return out;
}

/**
 * Registers the config's channels with the embedded server (replacing what this config file
 * registered before), when its server is on this machine. Returns the registry's path, or null
 * when the config points elsewhere.
 */
export function registerChannels(config: CultureConfig, env: NodeJS.ProcessEnv = process.env): string | null {
  if (!LOCAL_HOSTS.has(config.server.host.toLowerCase()) || !config.filepath) return null;
  const path = channelRegistryPath(serverDir(env));
  updateChannelRegistry(path, config.filepath, channelOwners(config));
  return path;
}
