// Benchmark: what one Vm adds to the state file, and how much of it is the
// serialized provider. `pulumi up` of 1 VM and of 2 VMs on fresh stacks (the
// simulator answers at once); the difference of the two state files is one
// VM. Pulumi stores a dynamic resource's provider as source text in the
// `__provider` property of its inputs AND its outputs; this provider's text
// only requires the compiled implementation by path, so it should stay a few
// hundred bytes, not a copy of the library.
//
// Run: `npm run build && node dist/bench/state-size.js [--quick]` (--quick changes nothing: it is fast).
import * as fs from "node:fs";
import { startSimulator } from "../simulator";
import { QUICK, aim, newStack, runMain } from "./common";

const VM_TYPE = "pulumi-nodejs:dynamic/goPveQemu:Vm";
/**
 * The aim: the serialized provider is a few KB, not a copy of the library.
 * Measured on one copy of its text; Pulumi keeps two per resource (inputs and
 * outputs), which the figures above the AIM line show too.
 */
const AIM_PROVIDER_BYTES = 4096;

interface StateResource {
  urn: string;
  type: string;
  inputs?: Record<string, unknown>;
  outputs?: Record<string, unknown>;
}

async function up(count: number): Promise<{ bytes: number; resources: StateResource[] }> {
  const sim = await startSimulator({ durationsZero: true, sshKey: true });
  const s = await newStack("vms", { count, "goPveQemu:endpoint": sim.url });
  try {
    await s.up();
    const text = fs.readFileSync(s.stateFile(), "utf8");
    const checkpoint = JSON.parse(text) as { checkpoint?: { latest?: { resources?: StateResource[] } } };
    return { bytes: Buffer.byteLength(text), resources: checkpoint.checkpoint?.latest?.resources ?? [] };
  } finally {
    await s.dispose();
    await sim.close();
  }
}

/** Bytes of a value as the state file holds it (compact JSON). */
function fileBytes(value: unknown): number {
  return Buffer.byteLength(JSON.stringify(value));
}

async function main(): Promise<void> {
  console.log(
    `state size: pulumi up of 1 VM and of 2 VMs on fresh stacks; the difference is one Vm${QUICK ? " (--quick: same run)" : ""}`,
  );
  const one = await up(1);
  const two = await up(2);
  const perVm = two.bytes - one.bytes;

  const vm = two.resources.find((r) => r.type === VM_TYPE && r.urn.endsWith("::vm-1"));
  if (!vm) throw new Error("no vm-1 in the state of the 2-VM stack");
  const providerIn = vm.inputs?.__provider;
  const providerOut = vm.outputs?.__provider;
  if (typeof providerIn !== "string" || typeof providerOut !== "string")
    throw new Error("vm-1 has no __provider string");
  // As stored: a JSON string value (escaped, quoted) of the "__provider" property, in inputs and outputs.
  const storedIn = Buffer.byteLength(JSON.stringify(providerIn));
  const storedOut = Buffer.byteLength(JSON.stringify(providerOut));
  const provider = storedIn + storedOut;
  const entry = fileBytes(vm);
  const inputs = fileBytes(vm.inputs);
  const outputs = fileBytes(vm.outputs);

  console.log("");
  console.log(`  state file, 1 VM:                       ${one.bytes} bytes`);
  console.log(`  state file, 2 VMs:                      ${two.bytes} bytes`);
  console.log(`  one Vm adds (difference):               ${perVm} bytes`);
  console.log(`    its resource entry in the file:       ${entry} bytes (inputs ${inputs}, outputs ${outputs})`);
  console.log(
    `    of which the serialized provider:     ${provider} bytes (inputs ${storedIn} + outputs ${storedOut}; ` +
      `${((100 * provider) / perVm).toFixed(1)}% of the Vm's bytes; the text itself ${Buffer.byteLength(providerIn)} bytes` +
      `${providerIn === providerOut ? ", same text in both" : ", the two copies differ"})`,
  );
  console.log(`  provider/Vm bytes ratio:                ${(provider / perVm).toFixed(3)}`);
  console.log("");
  aim("state-size-provider-bytes", Buffer.byteLength(providerIn), "<=", AIM_PROVIDER_BYTES, 0);
}

runMain(main);
