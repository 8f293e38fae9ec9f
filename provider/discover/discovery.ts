// What discover is given and what it answers. Interfaces only, so that the
// folder's entry point stays light (the work itself loads on the first call).
import type { VmInputs } from "../lifecycle";
import type { VM_TOKEN } from "../tokens";

export interface DiscoverOptions {
  /** The server: `endpoint` (required), and `token`, `headers`, `caCert` as a Vm's `connection` takes them. */
  connection: { endpoint: string; token?: string; headers?: Record<string, string>; caCert?: string };
  /**
   * Stacks whose VMs are left out: the path of a `pulumi stack export` file,
   * or an export itself (the Automation API's `await stack.exportStack()`).
   */
  excludeStackExports?: Array<string | unknown>;
  /** How long to wait for each answer of the server, ms. Default 30000. */
  timeoutMs?: number;
}

/** The inputs discover writes for a VM (a Vm's inputs, with adopt set). */
export type AdoptArgs = Pick<
  VmInputs,
  "os" | "version" | "name" | "vmid" | "node" | "cpu" | "memoryMb" | "diskGb" | "running" | "adopt"
>;

export interface AdoptedVm {
  /** The Pulumi resource name in the program. */
  resourceName: string;
  vmid: number;
  /** The server's name of the VM. */
  vmName: string;
  args: AdoptArgs;
  /** What the declaration cannot say exactly as the VM is (the version, sizes in whole GiB, no name), one phrase each. */
  notes: string[];
}

export interface SkippedVm {
  vmid: number;
  vmName: string;
  /** Why it is not declared, one phrase each. */
  reasons: string[];
}

/** One entry of Pulumi's bulk import file: the resource name, and the VMID as the resource's id. */
export interface ImportEntry {
  type: typeof VM_TOKEN;
  name: string;
  id: string;
}

/** Pulumi's bulk import file (`resources` only: the default provider, no parent). */
export interface ImportFile {
  resources: ImportEntry[];
}

export interface Discovery {
  /** The endpoint discovered. */
  endpoint: string;
  /** Declared in `program` with `adopt: true`, by VMID. */
  adopted: AdoptedVm[];
  /** Held by one of the stacks given: left out. */
  held: SkippedVm[];
  /** In the server's `.go_qemu_disabled` file, which forbids controlling them: left out. */
  disabled: SkippedVm[];
  /**
   * Listed, but not declarable as a Vm as it is (an OS the list does not give,
   * a size outside the Vm's bounds, a name another stack's resource would
   * claim, ...): written commented out in `program`, with the reasons.
   */
  undeclared: SkippedVm[];
  /** The TypeScript program that declares `adopted`. */
  program: string;
  /**
   * `adopted` as Pulumi's bulk import file (write it as JSON for
   * `pulumi import --file`, or give its `resources` to the Automation API's
   * `stack.import()`): the resource plugin's `gopveqemu:index:Vm`, named as in
   * `program`, the VMID as id.
   */
  importFile: ImportFile;
  /** What was found, left out and approximated, as lines for a person. */
  report: string[];
}
