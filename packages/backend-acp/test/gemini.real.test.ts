/**
 * The real Gemini CLI (`gemini --acp`, pinned in scripts/agent-clis.json) through culture's
 * daemon on the embedded IRC server, against a scripted Gemini API on 127.0.0.1.
 */
import { describeRealAcpAgent } from "./real-agent-cases.js";
import { describeRealAcpApprovals } from "./real-approval-cases.js";
import { describeRealAcpMcpTools } from "./real-mcp-cases.js";

describeRealAcpAgent("gemini");
describeRealAcpMcpTools("gemini");
describeRealAcpApprovals("gemini");
