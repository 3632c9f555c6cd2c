/**
 * The real OpenCode (`opencode acp`) in `sandbox: { kind: bwrap, network: off }` through
 * culture's daemon, against a scripted OpenAI-compatible API on 127.0.0.1 (real-sandbox-cases.ts).
 */
import { describeRealAcpSandbox } from "./real-sandbox-cases.js";

describeRealAcpSandbox("opencode");
