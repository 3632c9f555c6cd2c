/**
 * The real OpenCode (`opencode acp`, pinned in scripts/agent-clis.json) through culture's
 * daemon on the embedded IRC server, against a scripted OpenAI-compatible API on 127.0.0.1.
 */
import { describeRealAcpAgent } from "./real-agent-cases.js";
import { describeRealAcpApprovals } from "./real-approval-cases.js";
import { describeRealAcpMcpTools } from "./real-mcp-cases.js";

describeRealAcpAgent("opencode");
describeRealAcpMcpTools("opencode");
describeRealAcpApprovals("opencode");
