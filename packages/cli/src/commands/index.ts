/**
 * Every command of the program, in help order. Each file registers one command (or one
 * command group) on the program. Add a line here when you add a command file.
 */
import type { Command } from "commander";

/** Registers one command on the program. */
export type RegisterCommand = (program: Command) => void;

export const commands: RegisterCommand[] = [];
