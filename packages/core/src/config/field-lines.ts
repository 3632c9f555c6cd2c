/**
 * Line numbers of an agent's fields in its config file, for errors found after the config was
 * loaded (a backend's own fields, checked by the backend's schema): the file is read again and
 * the agent found by its nick. Best effort: undefined when the file is not YAML/JSON on disk,
 * or has changed.
 */
import { readFileSync } from "node:fs";
import { isMap, isScalar, isSeq, LineCounter, parseDocument, type Node } from "yaml";

/** The line (1-based) of `key` in the agent entry whose nick is `nick`, or of the entry itself. */
export function agentFieldLine(configFile: string | null | undefined, nick: string, key?: string): number | undefined {
  if (!configFile || !/\.(ya?ml|json)$/i.test(configFile)) return undefined;
  let text: string;
  try {
    text = readFileSync(configFile, "utf8");
  } catch {
    return undefined;
  }
  const lines = new LineCounter();
  const doc = parseDocument(text, { lineCounter: lines });
  const agents = doc.get("agents", true) as Node | undefined;
  if (!isSeq(agents)) return undefined;
  for (const item of agents.items) {
    if (!isMap(item) || item.get("nick") !== nick) continue;
    const pair = key === undefined ? undefined : item.items.find((p) => isScalar(p.key) && p.key.value === key);
    const node = (pair?.key as Node | undefined) ?? item;
    const start = node.range?.[0];
    return start === undefined ? undefined : lines.linePos(start).line;
  }
  return undefined;
}

/** An agent entry as written (before validation): its nick, its `agent:` and its other fields. */
export interface RawAgentEntry {
  nick: string | null;
  agent: string | null;
  /** Every field that is not a common agent key (the backend's own). */
  options: Record<string, unknown>;
}

/**
 * The agent entries of a YAML/JSON config file as written, for checks that go on after the
 * config itself failed validation (`culture config check` reports every problem in one run).
 * Empty when the file cannot be read or parsed.
 */
export function readAgentEntries(configFile: string, commonKeys: readonly string[]): RawAgentEntry[] {
  let data: unknown;
  try {
    data = parseDocument(readFileSync(configFile, "utf8")).toJS();
  } catch {
    return [];
  }
  const agents = (data as { agents?: unknown } | null)?.agents;
  if (!Array.isArray(agents)) return [];
  return agents
    .filter((a): a is Record<string, unknown> => a !== null && typeof a === "object" && !Array.isArray(a))
    .map((a) => ({
      nick: typeof a.nick === "string" ? a.nick : null,
      agent: typeof a.agent === "string" ? a.agent : null,
      options: Object.fromEntries(Object.entries(a).filter(([k]) => !commonKeys.includes(k))),
    }));
}
