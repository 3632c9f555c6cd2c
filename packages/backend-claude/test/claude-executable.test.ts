/**
 * Which Claude Code CLI runs when `executable` is not set: the SDK's bundled one, else (npm
 * skipped it with --omit=optional) a `claude` on PATH, else a clear error.
 */
import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { isCultureError } from "@culture/core";
import { afterEach, describe, expect, it } from "vitest";
import { bundledClaudeExecutable, describeExecutable, resolveClaudeExecutable } from "../src/claude-executable.js";

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

function binDir(withClaude: boolean): string {
  const dir = mkdtempSync(join(tmpdir(), "culture-claude-bin-"));
  dirs.push(dir);
  mkdirSync(join(dir, "bin"));
  if (withClaude) {
    writeFileSync(join(dir, "bin", "claude"), "#!/bin/sh\necho 1.0\n");
    chmodSync(join(dir, "bin", "claude"), 0o755);
  }
  return join(dir, "bin");
}

describe("resolveClaudeExecutable(null)", () => {
  // This checkout installs with --omit=optional, so the SDK's bundled CLI is absent.
  it("is running without the bundled CLI here", () => {
    expect(bundledClaudeExecutable()).toBeNull();
  });

  it("falls back to a claude on PATH", async () => {
    const bin = binDir(true);
    const found = await resolveClaudeExecutable(null, bin, "/");
    expect(found).toEqual({ path: join(bin, "claude"), bundled: false, source: "path", script: false });
  });

  it("names every way out when there is neither", async () => {
    const err = await resolveClaudeExecutable(null, binDir(false), "/").catch((e: unknown) => e);
    expect(isCultureError(err, "E_AGENT_COMMAND_NOT_FOUND")).toBe(true);
    expect((err as Error).message).toContain("no `claude` on PATH");
    expect((err as Error).message).toContain("npm install -g @anthropic-ai/claude-code");
  });
});

describe("describeExecutable", () => {
  it("names the executable that ran and where it came from, never 'bundled' for the claude on PATH", async () => {
    const bin = binDir(true);
    const onPath = await resolveClaudeExecutable(null, bin, "/");
    expect(describeExecutable(null, onPath)).toEqual([`${join(bin, "claude")} (the claude on PATH)`]);
    const configured = await resolveClaudeExecutable("claude", bin, "/");
    expect(describeExecutable("claude", configured)).toEqual([`${join(bin, "claude")} (executable: claude)`]);
    const byPath = await resolveClaudeExecutable(join(bin, "claude"), undefined, "/");
    expect(describeExecutable(join(bin, "claude"), byPath)).toEqual([join(bin, "claude")]);
    expect(describeExecutable(null, { path: "/x/claude", bundled: true, source: "bundled", script: false })).toEqual([
      "/x/claude (the Claude Code bundled with @anthropic-ai/claude-agent-sdk)",
    ]);
  });
});
