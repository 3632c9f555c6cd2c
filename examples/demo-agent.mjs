#!/usr/bin/env node
/**
 * culture's offline demo agent, for `acp_command: ["node", "examples/demo-agent.mjs"]` in a
 * clone of the repository. The agent itself ships inside the `culture` package:
 * packages/cli/demo/demo-agent.mjs (see there for what it does).
 */
import { realpathSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { serveStdio } from "../packages/cli/demo/demo-agent.mjs";

export { answer, parseIrcPrompt, serveStdio } from "../packages/cli/demo/demo-agent.mjs";

if (process.argv[1] && realpathSync(process.argv[1]) === fileURLToPath(import.meta.url)) serveStdio();
