/**
 * The `backend` command group: `list`, `add`, `remove`, `create`. Each subcommand lives in
 * its own file and registers itself on the group through {@link backendCommand}.
 */
import type { Command } from "commander";
import { registerBackendAddCommand } from "./add.js";
import { registerBackendCreateCommand } from "./create.js";
import { registerBackendListCommand } from "./list.js";
import { registerBackendRemoveCommand } from "./remove.js";

/** The `backend` command group: registered on first use, returned as is afterwards. */
export function backendCommand(program: Command): Command {
  const existing = program.commands.find((c) => c.name() === "backend");
  if (existing) return existing;
  return program.command("backend").description("list, add, remove and create agent backends");
}

/** Registers `culture backend` and its subcommands. */
export function registerBackendCommands(program: Command): void {
  registerBackendListCommand(program);
  registerBackendAddCommand(program);
  registerBackendRemoveCommand(program);
  registerBackendCreateCommand(program);
}
