// discover: the VMs of a go-pve-qemu server that no given stack holds, as a
// TypeScript program that adopts them. Plain and Pulumi-free: the command
// line and Automation API scripts call the same function.
//
// The work loads on the first call: the package's entry re-exports this entry point,
// and a program that only declares Vms must not pay for the HTTP client.
import type { DiscoverOptions, Discovery } from "./discovery";

export type { AdoptArgs, AdoptedVm, DiscoverOptions, Discovery, ImportEntry, ImportFile, SkippedVm } from "./discovery";
export { DiscoverOptionError } from "./discover-option-error";
export type { DiscoverOption } from "./discover-option-error";

/** Lists the server's VMs, leaves out what the stacks given hold and what the server protects, and declares the rest. */
export async function discover(options: DiscoverOptions): Promise<Discovery> {
  const { discover: run } = await import("./discover-run");
  return run(options);
}
