/** The prompt journal on a real file: durability records, torn lines, compaction. */
import { appendFileSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { PromptJournal } from "../src/daemon/prompt-journal.js";
import { createLogger } from "../src/logger.js";
import type { PromptOrigin } from "../src/events.js";

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

function setup() {
  const dir = mkdtempSync(join(tmpdir(), "journal-"));
  dirs.push(dir);
  const warnings: string[] = [];
  const logger = createLogger({ level: "warn", write: (l) => warnings.push(l) });
  return { path: join(dir, "prompts.jsonl"), logger, warnings };
}

const origin = (id: string, text: string): PromptOrigin => ({ id, kind: "mention", channel: "#c", sender: "alice", replyTo: "#c", text });
const entry = (id: string, text = `text ${id}`) => ({ id, at: 1_700_000_000_000, klass: "chatter" as const, origin: origin(id, text), text: `[IRC @mention in #c] <alice> ${text}` });

describe("PromptJournal", () => {
  it("creates the file 0600 and gives back what was added and not done, in order, with what had started", () => {
    const { path, logger } = setup();
    const { journal, pending } = PromptJournal.open({ path, logger });
    expect(pending).toEqual([]);
    expect(statSync(path).mode & 0o777).toBe(0o600);
    journal.add(entry("a"));
    journal.add(entry("b"));
    journal.add(entry("c"));
    journal.start("a");
    journal.done("b");
    journal.close();
    const again = PromptJournal.open({ path, logger });
    expect(again.pending.map((e) => [e.id, e.started])).toEqual([
      ["a", true],
      ["c", false],
    ]);
    again.journal.close();
  });

  it("skips a torn last line and a garbage line with a warning, and reads the rest", () => {
    const { path, logger, warnings } = setup();
    const { journal } = PromptJournal.open({ path, logger });
    journal.add(entry("a"));
    journal.add(entry("b"));
    journal.close();
    const text = readFileSync(path, "utf8");
    writeFileSync(path, `${text}not json at all\n`);
    appendFileSync(path, JSON.stringify({ op: "add", id: "c", at: 1, klass: "chatter", origin: origin("c", "x"), text: "x" }).slice(0, 40));
    const again = PromptJournal.open({ path, logger });
    expect(again.pending.map((e) => e.id)).toEqual(["a", "b"]);
    expect(warnings.join("\n")).toMatch(/skipped line 3, which is not a journal record/);
    expect(warnings.join("\n")).toMatch(/skipped a torn last line/);
    // Compacted on open: the damage is gone and the file is whole lines again.
    expect(readFileSync(path, "utf8").endsWith("\n")).toBe(true);
    again.journal.close();
  });

  it("stays bounded: past maxBytes it is rewritten with only the prompts not done", () => {
    const { path, logger } = setup();
    const { journal } = PromptJournal.open({ path, logger, maxBytes: 4096 });
    for (let i = 0; i < 500; i++) {
      journal.add(entry(`p${i}`, "x".repeat(100)));
      if (i !== 7) journal.done(`p${i}`);
    }
    expect(statSync(path).size).toBeLessThan(4096 + 1024);
    journal.close();
    expect(PromptJournal.open({ path, logger }).pending.map((e) => e.id)).toEqual(["p7"]);
  });
});
