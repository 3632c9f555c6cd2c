/**
 * Where the daemon's IPC requests go. The tools socket carries the agent's IRC commands: the
 * owner's control commands are refused there, and a send elsewhere than the task's origin asks
 * first (the IrcSend gate), after the command's own checks (so nobody approves a send that
 * would be refused). The control socket (token already checked) carries the owner's
 * commands and status: the agent's tools are refused there. A request that passes is answered
 * by the first that takes it: a plugin's `ipcRequest` tap, the approval desk, the budget, then
 * the IRC command catalogue's handlers.
 */
import type { IpcRequest, IpcResult } from "../events.js";
import type { DaemonHooks } from "../hooks.js";
import { handleApprovalIpc } from "./approval-ipc.js";
import type { ApprovalDesk } from "./approval-desk.js";
import { checkIpcRequest, handleIpcRequest, type IpcHandlerContext } from "./ipc-handlers.js";
import { controlOnToolsSocket, isControlType, toolOnControlSocket } from "./ipc-access.js";
import type { IrcSendGate } from "./irc-send-gate.js";

/** What {@link IpcRoutes} needs. */
export interface IpcRoutesOptions {
  nick: string;
  /** The tools socket's path (named in the control socket's refusals). */
  socketPath: string;
  hooks: DaemonHooks;
  gate: IrcSendGate;
  desk: ApprovalDesk;
  /** Answers `budget` requests (budget/agent-budget.ts), null for any other. */
  budget: (req: IpcRequest) => Promise<IpcResult> | IpcResult | null;
  /** The catalogue handlers' context, made when a request gets that far. */
  context: () => IpcHandlerContext;
}

/** Routes requests from the tools socket and the control socket. */
export class IpcRoutes {
  constructor(private readonly o: IpcRoutesOptions) {}

  /** A request on the tools socket; `closed` aborts when the client goes away. */
  async tools(req: IpcRequest, closed: AbortSignal): Promise<IpcResult> {
    if (isControlType(req.type)) return controlOnToolsSocket(req.type, this.o.nick);
    const precheck = (): Promise<IpcResult | null> => checkIpcRequest(req, this.o.context());
    return (await this.o.gate.check(req, closed, precheck)) ?? this.answer(req);
  }

  /** A request on the control socket. */
  async control(req: IpcRequest): Promise<IpcResult> {
    return toolOnControlSocket(req.type, this.o.socketPath) ?? this.answer(req);
  }

  private async answer(req: IpcRequest): Promise<IpcResult> {
    const answer = await this.o.hooks.ipcRequest.promise(req);
    if (answer) return answer;
    return handleApprovalIpc(req, this.o.desk) ?? this.o.budget(req) ?? handleIpcRequest(req, this.o.context());
  }
}
