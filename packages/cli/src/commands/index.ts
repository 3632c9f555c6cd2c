/**
 * Every command of the program, in help order. Each file registers one command (or one
 * command group) on the program. Add a line here when you add a command file.
 */
import type { Command } from "commander";
import { registerBackendCommands } from "./backend/index.js";
import { registerConfigCommand } from "./config-check.js";
import { registerServerCommand } from "./server.js";
import { registerStart } from "./start.js";
import { registerStop } from "./stop.js";
import { registerRestart } from "./restart.js";
import { registerStatus } from "./status.js";
import { registerUsage } from "./usage.js";
import { registerPauseResume } from "./pause-resume.js";
import { registerApprovals } from "./approvals.js";
import { registerBudget } from "./budget.js";
import { registerSchedule } from "./schedule.js";
import { registerLogs } from "./logs.js";
import { registerDemo } from "./demo.js";
import { registerInit } from "./init.js";
import { registerSend } from "./send.js";
import { registerChannel } from "./channel.js";
import { registerDoctor } from "./doctor.js";
import { registerSkills } from "./skills.js";
import { registerService } from "./service.js";
import { registerTop } from "./top.js";
import { registerConsole } from "./console.js";

/** Registers one command on the program. */
export type RegisterCommand = (program: Command) => void;

export const commands: RegisterCommand[] = [
  registerInit,
  registerStart,
  registerStop,
  registerRestart,
  registerStatus,
  registerUsage,
  registerPauseResume,
  registerApprovals,
  registerBudget,
  registerSchedule,
  registerLogs,
  registerTop,
  registerConsole,
  registerSend,
  registerChannel,
  registerDemo,
  registerConfigCommand,
  registerServerCommand,
  registerDoctor,
  registerSkills,
  registerService,
  registerBackendCommands,
];
