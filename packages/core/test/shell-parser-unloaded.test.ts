/**
 * Before the bash parser is loaded (it is WebAssembly, loaded once by the approval desk), no
 * shell command is plain and none is clear of a deny pattern: patterns never allow what was
 * not parsed. (A file of its own: vitest gives it a fresh module, with the parser not loaded.)
 */
import { expect, it } from "vitest";
import { parsePattern } from "../src/approvals/permission-pattern.js";
import { compilePolicy, evaluatePolicy } from "../src/approvals/permission-policy.js";
import { analyzeShellCommand } from "../src/approvals/shell-command.js";
import { initShellParser, shellParserReady } from "../src/approvals/shell-parser.js";

const shell = (command: string) => ({ tool: "Bash", kind: "shell" as const, command, summary: `run: ${command}` });

it("nothing is allowed by a pattern until the parser is loaded, then the same request is", async () => {
  expect(shellParserReady()).toBe(false);
  expect(analyzeShellCommand("npm test").argv).toBeNull();
  expect(analyzeShellCommand("npm test").opaque).toEqual(["the shell parser is not loaded"]);
  expect(evaluatePolicy(compilePolicy({ mode: "ask", allow: ["Bash(npm test*)"], deny: [] }), [parsePattern("Bash(npm test)")], shell("npm test"), "/p").action).toBe("ask");
  expect(evaluatePolicy(compilePolicy({ mode: "bypass", allow: [], deny: ["Bash(rm -rf*)"] }), [], shell("npm test"), "/p").action).toBe("deny");
  await initShellParser();
  expect(evaluatePolicy(compilePolicy({ mode: "ask", allow: ["Bash(npm test*)"], deny: [] }), [], shell("npm test"), "/p").action).toBe("allow");
  expect(evaluatePolicy(compilePolicy({ mode: "bypass", allow: [], deny: ["Bash(rm -rf*)"] }), [], shell("npm test"), "/p").action).toBe("allow");
});
