/**
 * Paths and protected paths (issue #24), table-driven on a real temp tree with real symlinks:
 * patterns are matched on where a path really leads (file and folder symlinks, `..` after a
 * symlink, a symlinked agent directory, a file that does not exist yet under a symlinked
 * folder); protected paths are found through symlinks and are never allowed by a pattern or a
 * saved rule; shell arguments that name one are found.
 */
import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { homedir, tmpdir, userInfo } from "node:os";
import { dirname, join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { exactPattern, matchesPattern, parsePattern } from "../src/approvals/permission-pattern.js";
import { compilePolicy, evaluatePolicy } from "../src/approvals/permission-policy.js";
import type { PermissionRequest } from "../src/approvals/permission-request.js";
import { ProtectedPaths, realPathNote, type PathAccess } from "../src/approvals/protected-paths.js";
import { realPath } from "../src/approvals/real-path.js";
import { protectedShellArgument } from "../src/approvals/shell-path-arguments.js";
import { initShellParser } from "../src/approvals/shell-parser.js";

const ROOT = realpathSync(mkdtempSync(join(tmpdir(), "culture-paths-")));
afterAll(() => rmSync(ROOT, { recursive: true, force: true }));
const at = (...p: string[]) => join(ROOT, ...p);
const HOME = at("home");
const CULTURE = at("culture");
const DIR = at("project");
const OTHER = at("other-agent");

function file(path: string, text = "x\n"): void {
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, text);
}
function link(path: string, target: string): void {
  mkdirSync(dirname(path), { recursive: true });
  symlinkSync(target, path);
}

// The tree.
file(at("outside", "secret.txt"), "the launch codes\n");
file(at("project", "src", "a.ts"));
file(at("project", "docs", "readme.md"));
file(at("project", "secret.txt"));
file(at("project", ".claude", "settings.json"), "{}\n");
file(at("project", ".git", "hooks", "pre-commit"));
file(at("project", ".git", "config"));
file(at("project", "nested-agent", "notes.md"));
link(at("project", "src", "leak.txt"), "../../outside/secret.txt"); // file symlink leaving the project
link(at("project", "src", "inner.txt"), "../docs/readme.md"); // file symlink staying inside
link(at("project", "src", "alias.txt"), "../secret.txt"); // another name for a denied file
link(at("project", "src", "dirlink"), "../../outside"); // folder symlink leaving the project
link(at("project", "src", "keylink"), join(HOME, ".ssh", "id_rsa")); // symlink to a protected file
link(at("project", "src", "keysdir"), join(HOME, ".ssh")); // symlink to a protected folder
mkdirSync(at("project", "src", "sub"), { recursive: true });
link(at("link-project"), "project"); // a symlinked agent directory
file(at("home", ".ssh", "id_rsa"), "-----BEGIN OPENSSH PRIVATE KEY-----\n");
file(at("home", "dotfiles", "aws", "credentials"));
link(at("home", ".aws"), "dotfiles/aws"); // a protected folder that is itself a symlink
file(at("home", "cc", ".credentials.json"));
file(at("home", ".bashrc"));
file(at("culture", "credentials", "spark-operator.json"), '{"password":"hunter2"}\n');
mkdirSync(at("culture", "state", "agent-spark-bot"), { recursive: true });
file(at("culture", "agents.yaml"));
file(at("other-agent", "notes.md"));

const read = (...paths: string[]): PermissionRequest => ({ tool: "Read", kind: "read", paths, summary: `read ${paths.join(", ")}` });
const edit = (...paths: string[]): PermissionRequest => ({ tool: "Edit", kind: "edit", paths, summary: `edit ${paths.join(", ")}` });

describe("patterns match real paths", () => {
  it.each<[string, PermissionRequest, boolean, string?]>([
    ["Read(src/**)", read("src/a.ts"), true],
    ["Read(src/**)", read(at("project", "src", "a.ts")), true],
    ["Read(src/**)", read("src/leak.txt"), false, "a file symlink out of the project"],
    ["Read(src/**)", read(at("project", "src", "leak.txt")), false, "the same, absolute"],
    ["Read(src/**)", read("src/inner.txt"), false, "a symlink inside the project is its target (docs/readme.md)"],
    ["Read(docs/**)", read("src/inner.txt"), true, "... which the target's pattern covers"],
    ["Read(src/**)", read("src/dirlink/secret.txt"), false, "a folder symlink out of the project"],
    ["Edit(src/**)", edit("src/dirlink/new.txt"), false, "a file that does not exist yet under a symlinked folder"],
    ["Edit(src/**)", edit("src/sub/new.txt"), true, "a file that does not exist yet, really inside"],
    ["Read(src/**)", read("src/../src/a.ts"), true],
    ["Read(src/**)", read("src/sub/../../../outside/secret.txt"), false, "`..` out of the project"],
    ["Read(src/outside-x)", read("src/dirlink/../outside-x"), false, "kernel: `..` of the symlink's target (outside); text: src/outside-x: both must match"],
    ["Read(**)", read("src/leak.txt"), false, "** never covers a path outside"],
    ["Read(**)", read("/etc/hosts"), false],
    ["Read(**/hosts)", read("/etc/hosts"), false, "a leading ** cannot reach an absolute path"],
    ["Read(**/secret.txt)", read("src/leak.txt"), false],
    ["Read(**)", read("."), true, "the directory itself"],
    ["Read(**)", read("src/a.ts", "src/leak.txt"), false, "every path must match"],
    [`Read(${ROOT}/outside/**)`, read("src/leak.txt"), true, "an absolute pattern names an outside location"],
    [`Read(${ROOT}/project/src/**)`, read("src/a.ts"), true, "an absolute pattern covers an inside path by its absolute real path"],
    [`Read(${ROOT}/link-project/src/**)`, read("src/a.ts"), true, "an absolute pattern's folders are resolved too"],
    [`Read(${ROOT}/outside/**)`, read(at("outside", "secret.txt")), true],
    ["Read(/etc/*)", read("/etc/hosts"), true],
    ["Read(../outside/**)", read("src/leak.txt"), false, "a relative pattern never names an outside path"],
    ["Read", read("src/leak.txt"), true, "a bare name is every request of the tool (protected paths aside)"],
  ])("%s vs %j -> %s (%s)", (pattern, request, expected) => {
    expect(matchesPattern(parsePattern(pattern), request, DIR)).toBe(expected);
  });

  it("a symlinked agent directory is its real directory", () => {
    const linked = at("link-project");
    expect(matchesPattern(parsePattern("Read(src/**)"), read("src/a.ts"), linked)).toBe(true);
    expect(matchesPattern(parsePattern("Read(src/**)"), read(at("project", "src", "a.ts")), linked)).toBe(true);
    expect(matchesPattern(parsePattern("Read(src/**)"), read(at("link-project", "src", "a.ts")), DIR)).toBe(true);
    expect(matchesPattern(parsePattern("Read(src/**)"), read("src/leak.txt"), linked)).toBe(false);
  });

  it("a path that does not exist is its deepest existing ancestor's real path plus the rest", () => {
    expect(realPath("src/dirlink/new/deeper.txt", DIR)).toBe(at("outside", "new", "deeper.txt"));
    expect(realPath("src/nope/../a.ts", DIR)).toBe(at("project", "src", "a.ts"));
    expect(realPath("src/dirlink/../x", DIR)).toBe(at("x"));
  });

  it("a deny pattern cannot be passed by another name (a symlink), and denies when any one path matches", () => {
    const policy = compilePolicy({ mode: "ask", allow: ["Read", "Edit"], deny: ["Read(secret.txt)", "Edit(.claude/**)"] });
    expect(evaluatePolicy(policy, [], read("src/alias.txt"), DIR)).toMatchObject({ action: "deny", pattern: "Read(secret.txt)" });
    expect(evaluatePolicy(policy, [], edit("src/a.ts", ".claude/x.json"), DIR)).toMatchObject({ action: "deny", pattern: "Edit(.claude/**)" });
    expect(evaluatePolicy(policy, [], read("src/a.ts"), DIR)).toMatchObject({ action: "allow" });
  });

  it("always saves the real path, and the request line shows it when the text says otherwise", () => {
    expect(exactPattern(read("src/leak.txt"), DIR)).toBe(`Read(${ROOT}/outside/secret.txt)`);
    expect(exactPattern(read("src/inner.txt"), DIR)).toBe("Read(docs/readme.md)");
    expect(exactPattern(read("src/a.ts"), DIR)).toBe("Read(src/a.ts)");
    expect(realPathNote(read("src/leak.txt"), DIR)).toBe(` [real path: ${ROOT}/outside/secret.txt]`);
    expect(realPathNote(read("src/a.ts", at("project", "docs", "readme.md")), DIR)).toBe("");
    expect(realPathNote(read("src/a.ts"), at("link-project"))).toBe("");
  });
});

const protect = new ProtectedPaths({
  directory: DIR,
  home: HOME,
  cultureHome: CULTURE,
  configFile: at("culture", "agents.yaml"),
  // The project itself is shared with another agent (not "other"); other-agent is someone else's.
  otherAgentDirectories: [OTHER, DIR, at("project", "nested-agent")],
  extra: ["private/", "~/notes/diary.md"],
  env: { CLAUDE_CONFIG_DIR: at("home", "cc") },
});

describe("protected paths", () => {
  it.each<[string, PathAccess, string | null]>([
    [join(HOME, ".ssh", "id_rsa"), "read", "SSH keys"],
    [join(HOME, ".ssh", "new_key"), "write", "SSH keys"],
    ["src/keylink", "read", "SSH keys"],
    ["src/keysdir/id_rsa", "read", "SSH keys"],
    ["src/keysdir", "read", "SSH keys"],
    [join(HOME, ".aws", "credentials"), "read", "AWS credentials"],
    [join(HOME, "dotfiles", "aws", "credentials"), "read", "AWS credentials"],
    [join(CULTURE, "credentials", "spark-operator.json"), "read", "culture credentials"],
    [join(CULTURE, "state", "agent-spark-bot", "control.token"), "read", "culture state"],
    [join(CULTURE, "agents.yaml"), "write", "culture config"],
    [join(HOME, "cc", ".credentials.json"), "read", "Claude Code credentials"],
    [join(HOME, ".codex", "auth.json"), "read", "Codex credentials"],
    [join(HOME, ".gemini", "oauth_creds.json"), "read", "Gemini CLI credentials"],
    [join(HOME, ".local", "share", "opencode", "auth.json"), "read", "opencode credentials"],
    [join(HOME, ".config", "gh", "hosts.yml"), "read", "GitHub CLI credentials"],
    [join(HOME, ".netrc"), "read", "netrc passwords"],
    [join(HOME, ".docker", "config.json"), "read", "Docker registry credentials"],
    [join(OTHER, "notes.md"), "read", "another agent's directory"],
    ["nested-agent/notes.md", "read", null],
    ["private/plan.md", "read", "listed in permissions.protected_paths"],
    [join(HOME, "notes", "diary.md"), "read", "listed in permissions.protected_paths"],
    // Reading a folder that holds a protected path reaches it (a search of ~ or /).
    [HOME, "read", "SSH keys"],
    ["/", "read", "culture credentials"],
    // ... including one inside the project: a search of the project reaches private/.
    [".", "read", "listed in permissions.protected_paths"],
    ["src", "read", null],
    // Configs that run code: writing asks, reading does not.
    [".claude/settings.json", "read", null],
    [".claude/settings.json", "write", "Claude Code settings (hooks run commands)"],
    [".claude/settings.local.json", "write", "Claude Code settings (hooks run commands)"],
    [".git/hooks/pre-commit", "write", "git hooks (run on commit, checkout, ...)"],
    [".git/config", "write", "git config (aliases, hooksPath, fsmonitor run commands)"],
    [".mcp.json", "write", "MCP server list (each server is a command)"],
    [".vscode/mcp.json", "write", "MCP server list (each server is a command)"],
    [".codex/config.toml", "write", "Codex config (MCP servers, hooks)"],
    [".gemini/settings.json", "write", "Gemini CLI settings (hooks and MCP servers)"],
    ["opencode.json", "write", "opencode config (MCP servers, plugins)"],
    [".opencode/plugin/x.ts", "write", "opencode config (plugins run code)"],
    [join(HOME, ".claude.json"), "read", "Claude Code account and MCP servers"],
    ["src/a.ts", "write", null],
    ["src/leak.txt", "read", null],
    [join(HOME, ".bashrc"), "read", null],
  ])("%s (%s) -> %s", (path, access, why) => {
    const hit = protect.check(path, access);
    if (why === null) expect(hit).toBeNull();
    else expect(hit?.why).toBe(why);
  });

  const policy = (mode: "ask" | "allowlist" | "bypass", extra: { allow?: string[]; deny?: string[]; protected?: "ask" | "deny" } = {}) =>
    compilePolicy({ mode, allow: extra.allow ?? ["Read", "Edit", "Grep", "Glob"], deny: extra.deny ?? [], protected: extra.protected ?? "ask" }, protect);
  const key = join(HOME, ".ssh", "id_rsa");
  it.each<[string, ReturnType<typeof policy>, string[], PermissionRequest, string]>([
    ["a bare Read allow does not cover a protected file: asked", policy("ask"), [], read(key), "ask"],
    ["nor through a symlink in the project", policy("ask"), [], read("src/keylink"), "ask"],
    ["nor a saved rule naming it exactly", policy("ask"), [`Read(${key})`], read(key), "ask"],
    ["nor a relative allow through a folder symlink", policy("ask", { allow: ["Read(src/**)"] }), [], read("src/keysdir/id_rsa"), "ask"],
    ["a search of the home folder", policy("ask"), [], { tool: "Grep", kind: "read", paths: [HOME], summary: "search" }, "ask"],
    ["the culture credentials", policy("ask"), [], read(join(CULTURE, "credentials", "spark-operator.json")), "ask"],
    ["writing hooks", policy("ask"), [], edit(".claude/settings.json"), "ask"],
    ["protected: deny denies", policy("ask", { protected: "deny" }), [], read(key), "deny"],
    ["allowlist denies (nobody to ask)", policy("allowlist"), [], read(key), "deny"],
    ["bypass allows (the agent has its owner's shell anyway)", policy("bypass"), [], read(key), "allow"],
    ["protected: deny denies in bypass too", policy("bypass", { protected: "deny" }), [], read(key), "deny"],
    ["a deny pattern still comes first", policy("ask", { deny: ["Read(/**)"] }), [], read(key), "deny"],
    ["an ordinary file is allowed", policy("ask"), [], read("src/a.ts"), "allow"],
  ])("%s", (_name, p, rules, request, expected) => {
    const v = evaluatePolicy(p, rules.map(parsePattern), request, DIR);
    expect(v.action).toBe(expected);
    if (expected === "ask") expect(v).toMatchObject({ protected: expect.objectContaining({ why: expect.any(String) }) });
  });

  it("the denial says which protected path and why", () => {
    expect(evaluatePolicy(policy("ask", { protected: "deny" }), [], read("src/keylink"), DIR)).toEqual({
      action: "deny",
      pattern: null,
      reason: `src/keylink is a protected path (SSH keys: ${HOME}/.ssh); permissions.protected is deny`,
    });
  });
});

describe("a plain shell command's arguments go through the protected paths (policy wiring)", () => {
  beforeAll(() => initShellParser());
  const shell = (command: string): PermissionRequest => ({ tool: "Bash", kind: "shell", command, summary: command });
  const policy = compilePolicy({ mode: "ask", allow: ["Bash(cat*)", "Bash(ls*)"], deny: [], protected: "ask" }, protect);
  it.each<[string, string]>([
    ["cat ~/.ssh/id_rsa", "ask"],
    ["cat src/keylink", "ask"],
    [`cat ${join(CULTURE, "credentials", "spark-operator.json")}`, "ask"],
    ["ls -la src", "allow"],
    ["cat src/a.ts", "allow"],
  ])("Bash(cat*) and %s: %s", (command, expected) => {
    expect(evaluatePolicy(policy, [], shell(command), DIR).action).toBe(expected);
  });
});

describe("shell arguments that name a protected path", () => {
  it.each<[string[], string | null]>([
    [["cat", "~/.ssh/id_rsa"], "SSH keys"],
    [["cat", join(HOME, ".ssh", "id_rsa")], "SSH keys"],
    [["cat", "src/keylink"], "SSH keys"],
    [["cat", "./src/keysdir/id_rsa"], "SSH keys"],
    [["grep", "-r", "BEGIN", "~"], "SSH keys"],
    [["ls", "/"], "culture credentials"],
    [["ls", ".."], "culture credentials"],
    [["cat", "--file=~/.aws/credentials"], "AWS credentials"],
    [["curl", `-o${CULTURE}/credentials/x.json`, "https://example.com"], "culture credentials"],
    [["cp", "x", "~/.config/gh/hosts.yml"], "GitHub CLI credentials"],
    [["tee", "opencode.json"], "opencode config (MCP servers, plugins)"],
    [["cp", "-r", "payload", ".git"], "git repository (hooks and config run commands)"],
    [["cp", "hook.sh", ".git/hooks/pre-commit"], "git hooks (run on commit, checkout, ...)"],
    [["cp", "x", ".claude"], ".claude folder (agent or git config that runs commands)"],
    [["cat", `${OTHER}/notes.md`], "another agent's directory"],
    [["git", "status"], null],
    [["ls", "-la"], null],
    [["ls", "."], "listed in permissions.protected_paths"],
    [["ls", "src"], null],
    [["cat", "src/a.ts", "docs/readme.md"], null],
    // A shell argument may be written to: configs that run code count.
    [["cat", ".claude/settings.json"], "Claude Code settings (hooks run commands)"],
    [["cat", "~nosuchuser-culture/.ssh/id_rsa"], null],
    [["cat", `~${userInfo().username}/.ssh/id_rsa`], "SSH keys"],
  ])("%j -> %s", (argv, why) => {
    const hit = protectedShellArgument(argv, DIR, protect, HOME);
    if (why === null) expect(hit).toBeNull();
    else expect(hit?.why).toBe(why);
  });

  it("a search of the project is not protected when nothing protected is in it", () => {
    const plain = new ProtectedPaths({ directory: DIR, home: HOME, cultureHome: CULTURE, configFile: null, otherAgentDirectories: [OTHER], extra: [], env: {} });
    expect(plain.check(".", "read")).toBeNull();
    expect(protectedShellArgument(["ls", "."], DIR, plain, HOME)).toBeNull();
    expect(protectedShellArgument(["grep", "-rn", "TODO", "src"], DIR, plain, HOME)).toBeNull();
  });

  it("names the word that touched it", () => {
    expect(protectedShellArgument(["cat", "-n", "src/keylink"], DIR, protect, HOME)).toEqual({ path: join(HOME, ".ssh"), why: "SSH keys", requested: "src/keylink" });
    expect(homedir()).toBeTruthy();
  });
});
