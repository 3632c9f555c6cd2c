/**
 * When the prompt journal's records are safe, and what a mention waits for (issue 30): a
 * record is written (one write(2)) before `add` returns, so a kill -9 right after loses
 * nothing; its fdatasync runs in the background, one at a time, later records coalesced,
 * so no mention waits for the disk on the event loop; `close` syncs what is left; a failed
 * sync is counted and said, never fatal.
 */
import * as fs from "node:fs";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, expect, it, vi } from "vitest";
import type { PromptOrigin } from "../src/events.js";

// Every fs call the journal makes goes to the real file system; the sync calls are counted,
// and the background fdatasync is held until the test lets it finish.
const calls = vi.hoisted(() => ({ fsyncSync: 0, fdatasyncSync: 0, fdatasync: [] as Array<(err: NodeJS.ErrnoException | null) => Promise<void>>, fail: null as NodeJS.ErrnoException | null }));
vi.mock("node:fs", async (importOriginal) => {
  const real = await importOriginal<typeof import("node:fs")>();
  return {
    ...real,
    fsyncSync: (fd: number) => {
      calls.fsyncSync++;
      real.fsyncSync(fd);
    },
    fdatasyncSync: (fd: number) => {
      calls.fdatasyncSync++;
      real.fdatasyncSync(fd);
    },
    fdatasync: (fd: number, cb: (err: NodeJS.ErrnoException | null) => void) => {
      // Held: finishSyncs runs it (the real sync, or a given error) and waits for the callback.
      calls.fdatasync.push(
        (err) =>
          new Promise<void>((done) => {
            if (err) return done(cb(err));
            real.fdatasync(fd, (e) => done(cb(e)));
          }),
      );
    },
  };
});
const { PromptJournal } = await import("../src/daemon/prompt-journal.js");
const { createLogger } = await import("../src/logger.js");

let dir = "";
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "journal-sync-"));
  calls.fsyncSync = 0;
  calls.fdatasyncSync = 0;
  calls.fdatasync.length = 0;
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const origin = (id: string): PromptOrigin => ({ id, kind: "mention", channel: "#c", sender: "alice", replyTo: "#c", text: id });
const entry = (id: string) => ({ id, at: 1_700_000_000_000, klass: "chatter" as const, origin: origin(id), text: `[IRC @mention in #c] <alice> ${id}` });
/** Lets the held background syncs run, and waits for them. */
async function finishSyncs(err: NodeJS.ErrnoException | null = null): Promise<void> {
  while (calls.fdatasync.length > 0) await calls.fdatasync.shift()!(err);
}

it("add returns with the record written (what a kill -9 leaves) and without waiting for the disk", () => {
  const path = join(dir, "prompts.jsonl");
  const { journal } = PromptJournal.open({ path, logger: createLogger({ level: "error" }) });
  journal.add(entry("a"));
  // No sync on the event loop...
  expect(calls.fsyncSync + calls.fdatasyncSync).toBe(0);
  // ...and the record is already in the file as any other process (or this one restarted) reads it.
  expect(readFileSync(path, "utf8")).toContain('"id":"a"');
  expect(calls.fdatasync).toHaveLength(1); // its sync is under way in the background
  journal.close();
});

it("one background sync at a time; records written meanwhile get one more; close syncs the rest", async () => {
  const path = join(dir, "prompts.jsonl");
  const { journal } = PromptJournal.open({ path, logger: createLogger({ level: "error" }) });
  journal.add(entry("a"));
  journal.add(entry("b"));
  journal.done("a");
  journal.start("b"); // not a durable record: asks for no sync
  expect(calls.fdatasync).toHaveLength(1);
  await finishSyncs();
  // b and done(a) were written during the first sync: exactly one more covered both.
  expect(calls.fsyncSync + calls.fdatasyncSync).toBe(0);
  journal.add(entry("c"));
  expect(calls.fdatasync).toHaveLength(1);
  journal.close();
  expect(calls.fsyncSync).toBe(1);
  const again = PromptJournal.open({ path, logger: createLogger({ level: "error" }) });
  expect(again.pending.map((e) => [e.id, e.started])).toEqual([
    ["b", true],
    ["c", false],
  ]);
  again.journal.close();
  await finishSyncs();
});

it("a failed background sync is counted and said, and the journal goes on", async () => {
  const path = join(dir, "prompts.jsonl");
  const warnings: string[] = [];
  const { journal } = PromptJournal.open({ path, logger: createLogger({ level: "warn", write: (l) => warnings.push(l) }) });
  journal.add(entry("a"));
  const eio = Object.assign(new Error("EIO: i/o error, fdatasync"), { code: "EIO" }) as NodeJS.ErrnoException;
  await finishSyncs(eio);
  expect(journal.writeFailures).toBe(1);
  expect(warnings.join("\n")).toMatch(/syncing the prompt journal failed: EIO/);
  journal.add(entry("b"));
  await finishSyncs();
  expect(journal.writeFailures).toBe(1);
  journal.close();
  expect(PromptJournal.open({ path, logger: createLogger({ level: "error" }) }).pending.map((e) => e.id)).toEqual(["a", "b"]);
});
