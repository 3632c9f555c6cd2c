/** `culture channel <cmd>`: the agent's IRC skill client. Filled in by the IPC work. */
export async function runChannel(_argv: string[]): Promise<number> {
  process.stderr.write("culture channel: not implemented yet\n");
  return 1;
}
