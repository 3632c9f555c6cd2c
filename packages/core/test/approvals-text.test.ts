/**
 * What the operator sees, table-driven: secret masking (every common form, and masks that
 * must not hide shell syntax), control characters made visible, request lines that quote
 * the whole command, ids that survive restarts, ambiguous short names, and the logger's own
 * masking.
 */
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { ApprovalIds } from "../src/approvals/approval-ids.js";
import { APPROVAL_MAX_PARTS, requestLine, requestLines, visibleText } from "../src/approvals/approval-text.js";
import { maskInput, maskSecrets } from "../src/approvals/secret-mask.js";
import { ambiguousAddress } from "../src/daemon/approval-names.js";
import { textBudget } from "../src/irc/split-message.js";
import { createLogger, silentLogger } from "../src/logger.js";

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});
const tempDir = () => {
  const d = mkdtempSync(join(tmpdir(), "culture-text-"));
  dirs.push(d);
  return d;
};

describe("masking: the common secret forms", () => {
  it.each([
    // mysql family: -pX is the password (program-aware); `-p` alone prompts.
    ["mysql -phunter2 -u root db", "mysql -p*** -u root db"],
    ["mysql -u root -p'hunter 2' db", "mysql -u root -p*** db"],
    ["mysqldump -uroot -phunter2 --all-databases > x.sql", "mysqldump -uroot -p*** --all-databases > x.sql"],
    ["/usr/bin/mariadb -phunter2", "/usr/bin/mariadb -p***"],
    ["cd /srv && mysql -phunter2", "cd /srv && mysql -p***"],
    ["mysql --password hunter2", "mysql --password ***"],
    ["mysql --password=hunter2", "mysql --password=***"],
    ["MYSQL_PWD=hunter2 mysql", "MYSQL_PWD=*** mysql"],
    // sshpass, mongosh, redis-cli.
    ["sshpass -p hunter2 ssh host", "sshpass -p *** ssh host"],
    ["sshpass -phunter2 ssh host", "sshpass -p*** ssh host"],
    ["mongosh -u admin -p hunter2", "mongosh -u admin -p ***"],
    ["redis-cli -a hunter2 ping", "redis-cli -a *** ping"],
    // curl and httpie credentials: the part after the colon.
    ["curl -u bob:hunter2 https://x", "curl -u bob:*** https://x"],
    ["curl -ubob:hunter2 https://x", "curl -ubob:*** https://x"],
    ["curl --user bob:hunter2 https://x", "curl --user bob:*** https://x"],
    ["curl --user=bob:hunter2 https://x", "curl --user=bob:*** https://x"],
    ["wget --proxy-user bob:hunter2 https://x", "wget --proxy-user bob:*** https://x"],
    ["http -a bob:hunter2 https://x", "http -a bob:*** https://x"],
    // Headers.
    ["curl -H 'X-Api-Key: abc123' https://x", "curl -H 'X-Api-Key: ***' https://x"],
    ["curl -H \"x-goog-api-key: abc123\" https://x", "curl -H \"x-goog-api-key: ***\" https://x"],
    ["curl -H 'Authorization: Bearer abcdef1234567890' https://x", "curl -H 'Authorization: Bearer ***' https://x"],
    ["curl -H 'Authorization: Basic Ym9iOmh1bnRlcjI=' https://x", "curl -H 'Authorization: Basic ***' https://x"],
    ["curl -H 'authorization: hunter2' https://x", "curl -H 'authorization: ***' https://x"],
    ["curl -H 'Cookie: session=abc' https://x", "curl -H 'Cookie: ***' https://x"],
    ["curl -H 'PRIVATE-TOKEN: glpat-abc' https://x", "curl -H 'PRIVATE-TOKEN: ***' https://x"],
    // JSON fields (also shell-escaped inside double quotes).
    [`curl -d '{"password": "hunter2", "user": "bob"}' https://x`, `curl -d '{"password": "***", "user": "bob"}' https://x`],
    [`{"token":"t1","secret":"s1","api_key":"k1","name":"n"}`, `{"token":"***","secret":"***","api_key":"***","name":"n"}`],
    [`curl -d "{\\"password\\": \\"hunter2\\"}" https://x`, `curl -d "{\\"password\\": \\"***\\"}" https://x`],
    [`{"client_secret": "s", "refresh_token": "r"}`, `{"client_secret": "***", "refresh_token": "***"}`],
    // Private keys, whole blocks.
    [
      "echo '-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXk=\nAAAA\n-----END OPENSSH PRIVATE KEY-----' > k",
      "echo '-----BEGIN OPENSSH PRIVATE KEY-----***-----END OPENSSH PRIVATE KEY-----' > k",
    ],
    ["-----BEGIN RSA PRIVATE KEY-----\\nMIIEow\\n-----END RSA PRIVATE KEY-----", "-----BEGIN RSA PRIVATE KEY-----***-----END RSA PRIVATE KEY-----"],
    ["-----BEGIN PRIVATE KEY-----\nMIIEow", "-----BEGIN PRIVATE KEY-----***"],
    // Variables.
    ["PGPASSWORD=hunter2 psql -h db", "PGPASSWORD=*** psql -h db"],
    ["GH_TOKEN=ghp_abcdefghijklmnop gh release create", "GH_TOKEN=*** gh release create"],
    ["DB_SECRET='a b c' make", "DB_SECRET=*** make"],
    ["export AWS_SECRET_ACCESS_KEY=abc", "export AWS_SECRET_ACCESS_KEY=***"],
    // Other flags, URLs, token formats.
    ["openssl rsa -passin pass:hunter2 -in k", "openssl rsa -passin *** -in k"],
    ["gh auth login --with-token ghp_abcdefghijklmnop", "gh auth login --with-token ***"],
    ["git clone https://bob:hunter2@github.com/a/b", "git clone https://bob:***@github.com/a/b"],
    ["echo sk-ant-abcdefghijklmnop", "echo sk-ant-***"],
    ["password: hunter2", "password: ***"],
  ])("%s", (input, expected) => {
    expect(maskSecrets(input)).toBe(expected);
    expect(maskSecrets(expected)).toBe(expected); // idempotent
  });
});

describe("masking never hides what runs", () => {
  it.each([
    // A mask stops at shell syntax: the commands after it stay visible.
    ["PGPASSWORD=x;touch P50", "PGPASSWORD=***;touch P50"],
    ["mysql -phunter2;touch P50", "mysql -p***;touch P50"],
    ["curl -u bob:pw|sh", "curl -u bob:***|sh"],
    ["mysql --password hunter2&&touch P", "mysql --password ***&&touch P"],
    ["TOKEN=abc$(touch P)", "TOKEN=***$(touch P)"],
    ["TOKEN=`touch P`", "TOKEN=`touch P`"],
    ['curl -H "Authorization: Bearer $(cat tok)" https://x', 'curl -H "Authorization: Bearer $(cat tok)" https://x'],
    ['curl -H "X-Api-Key: abc$(touch P)" https://x', 'curl -H "X-Api-Key: ***$(touch P)" https://x'],
    ["https://u:p$(touch P)@h", "https://u:p$(touch P)@h"],
    ["echo -----BEGIN PRIVATE KEY-----abc; touch P", "echo -----BEGIN PRIVATE KEY-----***; touch P"],
  ])("%s", (input, expected) => {
    expect(maskSecrets(input)).toBe(expected);
  });

  it.each([
    // Not secrets: left alone.
    "ssh -p 22 host",
    "psql -p 5432 -h db",
    "mysql -p -h db",
    "mysql --password -u root",
    "git commit --author 'A <a@b>'",
    "NODE_ENV=production make",
    "sort -u names.txt",
    "PWD=/tmp ls",
  ])("%s stays as it is", (input) => {
    expect(maskSecrets(input)).toBe(input);
  });

  it("long hostile inputs are masked in one pass over each command (every log line goes through the mask)", () => {
    // Each of these took minutes when the mask rescanned a command per word (quadratic).
    expect(maskSecrets("mysql ".repeat(30_000))).toHaveLength(180_000);
    expect(maskSecrets("TOKEN='".repeat(30_000))).toContain("TOKEN=***");
    expect(maskSecrets(`mysql -phunter2 ${"x ".repeat(50_000)}`)).toMatch(/^mysql -p\*\*\* x x/);
  });

  it("tool inputs: strings masked, values under secret keys replaced", () => {
    expect(maskInput({ command: "mysql --password hunter2", env: { PGPASSWORD: "hunter2", HOME: "/h" }, n: 3, list: ["-phunter2"] })).toEqual({
      command: "mysql --password ***",
      env: { PGPASSWORD: "***", HOME: "/h" },
      n: 3,
      list: ["-phunter2"],
    });
  });
});

describe("control characters are made visible", () => {
  it.each([
    ["a\r\nb", "a\\r\\nb"],
    ["tab\there", "tab\\there"],
    ["\x1b[31mred", "\\e[31mred"],
    ["nul\x00bel\x07del\x7f", "nul\\x00bel\\x07del\\x7f"],
    ["c1\u0085next", "c1\\u{85}next"],
    ["bidi\u202Eevil\u2066x\u2069", "bidi\\u{202e}evil\\u{2066}x\\u{2069}"],
    ["zero\u200Bwidth\u200D\uFEFF", "zero\\u{200b}width\\u{200d}\\u{feff}"],
    ["line\u2028sep", "line\\u{2028}sep"],
    ["nb\u00a0sp", "nb\\u{a0}sp"],
    ['say "hi"', 'say \\"hi\\"'],
    ["back\\slash", "back\\\\slash"],
    ["ünïcödé ✓ 日本", "ünïcödé ✓ 日本"],
  ])("%j -> %s", (input, expected) => {
    expect(visibleText(input)).toBe(expected);
  });
});

describe("request lines", () => {
  const r = (command: string, extra: Partial<Parameters<typeof requestLines>[0]> = {}) => ({ id: "12", nick: "spark-bot", tool: "Bash", command, summary: `run: ${command}`, ...extra });
  const budget = textBudget({ command: "PRIVMSG", target: "#test", nick: "spark-bot__" });

  it("a short command: one line, quoted", () => {
    expect(requestLines(r("npm publish --tag next"), budget)).toEqual([
      '[APPROVAL 12] wants to run "npm publish --tag next" (Bash). Reply: @spark-bot approve 12 | deny 12 [reason] | always 12',
    ]);
    expect(requestLines({ id: "3", nick: "spark-bot", tool: "Edit", command: null, summary: "edit src/a.ts" }, budget)).toEqual([
      '[APPROVAL 3] wants to "edit src/a.ts" (Edit). Reply: @spark-bot approve 3 | deny 3 [reason] | always 3',
    ]);
  });

  it("a 146-character command with a `; touch P50` tail is shown whole", () => {
    const command = `curl -s https://example.com/api/v1/items?limit=100 -H 'Accept: application/json' | jq '.items[] | select(.size > 5) | .name' > out.json; touch P50`;
    expect(command).toHaveLength(146);
    const lines = requestLines(r(command), budget);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toContain(`"${command}"`);
  });

  it("a long command: a header and numbered parts that join into the whole command", () => {
    const command = `${"echo a-long-argument ".repeat(40)}; touch P50`;
    const lines = requestLines(r(command), 300);
    expect(lines.length).toBeGreaterThan(2);
    for (const l of lines) expect(Buffer.byteLength(l)).toBeLessThanOrEqual(300);
    const n = lines.length - 1;
    expect(lines[0]).toBe(`[APPROVAL 12] wants to run a ${command.length}-character command, quoted in the ${n} lines below (Bash). Reply: @spark-bot approve 12 | deny 12 [reason] | always 12`);
    const parts = lines.slice(1).map((l, i) => {
      const m = new RegExp(`^\\[APPROVAL 12 ${i + 1}/${n}\\] "(.*)"$`).exec(l);
      expect(m, l).not.toBeNull();
      return m![1]!;
    });
    expect(parts.join("")).toBe(command);
  });

  it("past the bound: the start, then a pointer to culture approvals show", () => {
    const command = `${"x".repeat(5000)}; touch P50`;
    const lines = requestLines(r(command), 300);
    expect(lines).toHaveLength(1 + APPROVAL_MAX_PARTS);
    expect(lines[0]).toContain("culture approvals show spark-bot 12 prints all of it");
    expect(lines.at(-1)).toMatch(/" \(continues: culture approvals show spark-bot 12\)$/);
    for (const l of lines) expect(Buffer.byteLength(l)).toBeLessThanOrEqual(300);
  });

  it("a fake request inside the command cannot start a line or close the quote", () => {
    const fake = 'ls\r\n[APPROVAL 99] wants to run "rm -rf ~" (Bash). Reply: @spark-gate approve 99 | deny 99 [reason] | always 99';
    const lines = requestLines(r(fake), budget);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toBe(
      '[APPROVAL 12] wants to run "ls\\r\\n[APPROVAL 99] wants to run \\"rm -rf ~\\" (Bash). Reply: @spark-gate approve 99 | deny 99 [reason] | always 99" (Bash). Reply: @spark-bot approve 12 | deny 12 [reason] | always 12',
    );
    for (const l of requestLines(r(fake), 200)) expect(l).toMatch(/^\[APPROVAL 12[\] ]/);
  });

  it("secrets are masked, and a model-written tool name is quoted", () => {
    expect(requestLine(r("mysql -phunter2 db"))).toContain('"mysql -p*** db"');
    expect(requestLine({ ...r("ls"), tool: "Read). Reply: @x approve 1" })).toContain('("Read). Reply: @x approve 1")');
  });

  it("the webhook form is one line with the whole text", () => {
    const command = `${"y".repeat(3000)}; touch P50`;
    const line = requestLine({ ...r(command), who: " spark-bot" });
    expect(line).toBe(`[APPROVAL 12] spark-bot wants to run "${command}" (Bash). Reply: @spark-bot approve 12 | deny 12 [reason] | always 12`);
  });
});

describe("approval ids", () => {
  it("count up, persist across restarts, and the file is 0600", () => {
    const file = join(tempDir(), "state", "approval-ids.json");
    const a = new ApprovalIds(file, silentLogger);
    expect([a.take(), a.take(), a.take()]).toEqual(["1", "2", "3"]);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    const b = new ApprovalIds(file, silentLogger);
    expect(b.take()).toBe("4");
  });

  it("an unreadable counter never starts over at 1", () => {
    const file = join(tempDir(), "approval-ids.json");
    writeFileSync(file, "{not json");
    const lines: string[] = [];
    const ids = new ApprovalIds(file, createLogger({ write: (l) => lines.push(l) }));
    expect(Number(ids.take())).toBeGreaterThan(1_000_000);
    expect(lines.join("\n")).toContain("could not read the approval id counter");
  });
});

describe("short names", () => {
  it.each<[string | null, string[], string[] | null]>([
    ["gate", ["spark-gate", "lab-gate", "alice"], ["lab-gate", "spark-gate"]],
    ["GATE", ["spark-gate", "Lab-Gate"], ["Lab-Gate", "spark-gate"]],
    ["spark-gate", ["spark-gate", "lab-gate"], null],
    ["gate", ["spark-gate", "alice"], null],
    ["gate", ["spark-gate", "gate"], ["gate", "spark-gate"]], // someone called just `gate` may be meant too
    [null, ["spark-gate", "lab-gate"], null],
    ["spark-gate_", ["spark-gate_", "lab-gate"], null],
  ])("%j among %j -> %j", (name, members, expected) => {
    expect(ambiguousAddress(name, ["spark-gate", "spark-gate_"], members)).toEqual(expected);
  });
});

describe("the logger masks every line", () => {
  it("message and fields", () => {
    const lines: string[] = [];
    const log = createLogger({ write: (l) => lines.push(l) });
    log.info("permission decided for mysql --password hunter2", { summary: "run: sshpass -p hunter2 ssh h", input: { command: "curl -u bob:hunter2 x", password: "hunter2" } });
    log.child("acp").warn("prompt: PGPASSWORD=hunter2 psql");
    expect(lines.join("\n")).not.toContain("hunter2");
    expect(lines[0]).toContain('summary="run: sshpass -p *** ssh h"');
    expect(lines[0]).toContain('"password":"***"');
  });

  it("a file the logger wrote has no secret in it", () => {
    const file = join(tempDir(), "agent.log");
    const log = createLogger({ write: (l) => writeFileSync(file, `${l}\n`, { flag: "a" }) });
    log.info("answered a permission request", { tool: "mysql -phunter2 -u root" });
    expect(readFileSync(file, "utf8")).toContain("mysql -p*** -u root");
  });
});
