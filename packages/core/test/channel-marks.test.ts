/** The channel marks file on a real file: what a previous daemon saw, forgets, torn lines, bounds. */
import { appendFileSync, mkdtempSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { ChannelMarks } from "../src/irc/channel-marks.js";
import { createLogger } from "../src/logger.js";

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

function setup() {
  const dir = mkdtempSync(join(tmpdir(), "marks-"));
  dirs.push(dir);
  const warnings: string[] = [];
  const logger = createLogger({ level: "warn", write: (l) => warnings.push(l) });
  return { path: join(dir, "channel-marks.jsonl"), logger, warnings };
}

describe("ChannelMarks", () => {
  it("creates the file 0600; a first start has no marks and says no file existed", () => {
    const { path, logger } = setup();
    const marks = ChannelMarks.open({ path, logger });
    expect(marks.existed).toBe(false);
    expect(marks.saved.size).toBe(0);
    expect(statSync(path).mode & 0o777).toBe(0o600);
    marks.close();
  });

  it("gives the next daemon each channel's newest time and the keys of the lines within 2 s of it, even without close (kill -9)", () => {
    const { path, logger } = setup();
    const marks = ChannelMarks.open({ path, logger });
    marks.note("#a", 1_000, "id:old:#a");
    marks.note("#a", 5_000, "id:x:#a");
    marks.note("#a", 6_000, null); // our own echo: a time, no key
    marks.note("#a", 6_500, "id:y:#a");
    marks.note("#b", 2_000, "id:z:#b");
    // No close(): what a killed daemon leaves (appended, not fsync'd).
    const next = ChannelMarks.open({ path, logger });
    expect(next.existed).toBe(true);
    expect(Object.fromEntries(next.saved)).toEqual({
      "#a": { time: 6_500, keys: ["id:x:#a", "id:y:#a"] },
      "#b": { time: 2_000, keys: ["id:z:#b"] },
    });
    // Opening rewrote it with only that.
    expect(readFileSync(path, "utf8").trim().split("\n")).toHaveLength(3);
    next.close();
    marks.close();
  });

  it("forgets a channel left for good, and skips a torn last line with a warning", () => {
    const { path, logger, warnings } = setup();
    const marks = ChannelMarks.open({ path, logger });
    marks.note("#a", 1_000, "id:a:#a");
    marks.note("#b", 1_000, "id:b:#b");
    marks.forget("#a");
    appendFileSync(path, '{"c":"#b","t":9');
    const next = ChannelMarks.open({ path, logger });
    expect([...next.saved.keys()]).toEqual(["#b"]);
    expect(next.saved.get("#b")?.time).toBe(1_000);
    expect(warnings.join("\n")).toContain("skipped 1 line(s) that are not marks");
    next.close();
    marks.close();
  });

  it("stays small: past maxBytes the file is rewritten with only what matters", () => {
    const { path, logger } = setup();
    const marks = ChannelMarks.open({ path, logger, maxBytes: 4096 });
    for (let i = 0; i < 2_000; i++) marks.note("#a", i * 1_000, `id:${i}:#a`);
    expect(statSync(path).size).toBeLessThan(4096 + 100);
    marks.close();
    expect(ChannelMarks.open({ path, logger }).saved.get("#a")).toEqual({ time: 1_999_000, keys: ["id:1997:#a", "id:1998:#a", "id:1999:#a"] });
  });
});
