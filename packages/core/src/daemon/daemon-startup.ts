/**
 * Startup steps of the agent daemon that need none of its state: claiming the socket (one
 * daemon per agent), reading the prompt journal a previous daemon left, ending agent
 * processes a killed daemon left running, and the backend's preflight (can the agent run?).
 */
import { existsSync, unlinkSync } from "node:fs";
import type { BackendDefinition } from "../backend.js";
import { alreadyRunning, errorMessage, socketPathTooLong, type CultureError } from "../errors.js";
import { probeSocket } from "../ipc/ipc-client.js";
import type { Logger } from "../logger.js";
import { reapRecordedAgents } from "../process/agent-record.js";
import { ensureAgentStateDir, ensureRuntimeDir, socketPathFits, UNIX_SOCKET_PATH_LIMIT } from "../paths.js";
import { PromptJournal, type JournalEntry } from "./prompt-journal.js";
import type { QueuedPrompt } from "./prompt-queue.js";

/** Single instance: a live daemon on `path` wins (E_ALREADY_RUNNING); a stale socket file is replaced. */
export async function claimSocket(path: string, nick: string, env: NodeJS.ProcessEnv, logger: Logger): Promise<void> {
  if (!socketPathFits(path)) throw socketPathTooLong(path, UNIX_SOCKET_PATH_LIMIT);
  ensureRuntimeDir(env);
  if (!existsSync(path)) return;
  const probe = await probeSocket(path, 2000);
  if (probe.alive) throw alreadyRunning(nick, probe.pid);
  logger.info("replacing a stale socket file", { path });
  try {
    unlinkSync(path);
  } catch {
    /* already gone */
  }
}

/**
 * Opens the journal at `path` and returns it with the prompts a previous daemon left undone,
 * oldest first, ready to queue ahead of anything new (whatever their class was).
 */
export function openJournal(path: string, nick: string, env: NodeJS.ProcessEnv, logger: Logger, maxBytes: number): { journal: PromptJournal; pending: QueuedPrompt[] } {
  ensureAgentStateDir(nick, env);
  const { journal, pending } = PromptJournal.open({ path, logger: logger.child("journal"), maxBytes });
  if (pending.length) logger.info(`delivering ${pending.length} prompt(s) a previous daemon did not finish`, { journal: path });
  return { journal, pending: pending.map((entry) => ({ origin: entry.origin, text: delayedPrompt(entry), klass: "system", journaled: true })) };
}

/**
 * Ends the agent processes a previous daemon recorded at `recordPath` and never saw exit (it
 * was killed): only those still alive with the recorded start time. Returns their pids.
 */
export async function endLeftoverAgents(recordPath: string, logger: Logger, graceMs: number): Promise<number[]> {
  const reaped = await reapRecordedAgents(recordPath, logger, graceMs);
  const ended = reaped.filter((r) => r.outcome === "ended").map((r) => r.pid);
  if (ended.length) logger.warn(`ended ${ended.length} agent process(es) a previous daemon left running`, { pids: ended.join(" ") });
  return ended;
}

/** A journaled prompt delivered by a later daemon: the original text plus a note saying so. */
function delayedPrompt(entry: JournalEntry): string {
  const when = new Date(entry.at).toISOString().replace(/\.\d+Z$/, "Z");
  const why = entry.started
    ? "its first attempt was cut short when the agent's daemon stopped"
    : "the agent's daemon stopped before it was delivered";
  return `${entry.text}\n[culture: delayed — this arrived at ${when}; ${why}. It is delivered once, now.]`;
}

/**
 * The backend's preflight (backend.ts): the error that keeps the agent from running at all
 * (not signed in), or null. A preflight that itself throws is logged and ignored: the runner's
 * own start then says what is wrong.
 */
export async function preflight(backend: BackendDefinition, options: unknown, env: NodeJS.ProcessEnv, logger: Logger): Promise<CultureError | null> {
  if (!backend.preflight) return null;
  try {
    return (await backend.preflight(options, env)) ?? null;
  } catch (err) {
    logger.warn(`the ${backend.name} backend's preflight failed: ${errorMessage(err)}`);
    return null;
  }
}
