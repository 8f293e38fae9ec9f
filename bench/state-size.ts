// Benchmark: what one Vm adds to the state file on each way in, and how much of
// it is the serialized provider. `pulumi up` of 1 VM and of 2 VMs on fresh
// stacks (the simulator answers at once), through the dynamic provider and
// through the resource plugin; the difference of the two state files is one
// VM. Pulumi stores a dynamic resource's provider as source text in the
// `__provider` property of its inputs AND its outputs; this provider's text
// only requires the compiled implementation by path, so it should stay a few
// hundred bytes, not a copy of the library. A plugin resource carries no
// provider text: its provider is a resource of the stack, once per stack.
// What each stack holds besides its Vms (the dynamic provider's StackIdentity and
// default provider, the plugin's provider resource with the identity among
// its inputs) is printed per stack.
//
// Run: `npm run build && node dist/bench/state-size.js [--quick]` (--quick changes nothing: it is fast).
import * as fs from "node:fs";
import { startSimulator } from "../simulator";
import { ROOT } from "../scripts/engine-env";
import { WAYS_IN, QUICK, VM_TYPES, aim, newStack, runMain, vmsConfig, type WayIn } from "./common";

/**
 * The aim: the serialized provider is a few KB, not a copy of the library.
 * Measured on one copy of its text; Pulumi keeps two per resource (inputs and
 * outputs), which the figures above the AIM line show too.
 */
const AIM_PROVIDER_BYTES = 4096;
/** The aim: a Vm through the plugin holds no more bytes than through the dynamic provider. */
const AIM_PLUGIN_PER_VM = 1;

interface StateResource {
  urn: string;
  type: string;
  inputs?: Record<string, unknown>;
  outputs?: Record<string, unknown>;
}

async function up(via: WayIn, count: number): Promise<{ bytes: number; resources: StateResource[] }> {
  const sim = await startSimulator({ durationsZero: true, sshKey: true });
  const s = await newStack("vms", vmsConfig(via, sim.url, { count }));
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

interface WayInSize {
  one: number;
  two: number;
  perVm: number;
  vm: StateResource;
  /** what the stack holds besides its Vms and the stack resource itself: type -> bytes of its entry */
  perStack: [string, number][];
}

async function measure(via: WayIn): Promise<WayInSize> {
  const one = await up(via, 1);
  const two = await up(via, 2);
  const vm = two.resources.find((r) => r.type === VM_TYPES[via] && r.urn.endsWith("::vm-1"));
  if (!vm) throw new Error(`no vm-1 of type ${VM_TYPES[via]} in the state of the 2-VM stack (on the ${via} way in)`);
  const perStack = two.resources
    .filter((r) => r.type !== VM_TYPES[via] && r.type !== "pulumi:pulumi:Stack")
    .map((r): [string, number] => [r.type, fileBytes(r)]);
  return { one: one.bytes, two: two.bytes, perVm: two.bytes - one.bytes, vm, perStack };
}

function dynamicProvider(d: WayInSize): number {
  const providerIn = d.vm.inputs?.__provider;
  const providerOut = d.vm.outputs?.__provider;
  if (typeof providerIn !== "string" || typeof providerOut !== "string")
    throw new Error("vm-1 has no __provider string");
  // As stored: a JSON string value (escaped, quoted) of the "__provider" property, in inputs and outputs.
  const storedIn = Buffer.byteLength(JSON.stringify(providerIn));
  const storedOut = Buffer.byteLength(JSON.stringify(providerOut));
  const provider = storedIn + storedOut;
  console.log(
    `    of which the serialized provider:     ${provider} bytes (inputs ${storedIn} + outputs ${storedOut}; ` +
      `${((100 * provider) / d.perVm).toFixed(1)}% of the Vm's bytes; the text itself ${Buffer.byteLength(providerIn)} bytes` +
      `${providerIn === providerOut ? ", same text in both" : ", the two copies differ"})`,
  );
  console.log(`  provider/Vm bytes ratio:                ${(provider / d.perVm).toFixed(3)}`);
  return Buffer.byteLength(providerIn);
}

async function main(): Promise<void> {
  console.log(
    `state size: pulumi up of 1 VM and of 2 VMs on fresh stacks, on each way in; the difference is one Vm${QUICK ? " (--quick: same run)" : ""}`,
  );
  const sizes = {} as Record<WayIn, WayInSize>;
  let providerText = 0;
  for (const via of WAYS_IN) {
    const d = (sizes[via] = await measure(via));
    console.log("");
    console.log(`  ${via} (${VM_TYPES[via]})`);
    console.log(`  state file, 1 VM:                       ${d.one} bytes`);
    console.log(`  state file, 2 VMs:                      ${d.two} bytes`);
    console.log(`  one Vm adds (difference):               ${d.perVm} bytes`);
    console.log(
      `    its resource entry in the file:       ${fileBytes(d.vm)} bytes (inputs ${fileBytes(d.vm.inputs)}, outputs ${fileBytes(d.vm.outputs)})` +
        `; this machine's path (${ROOT}) ${JSON.stringify(d.vm).includes(ROOT) ? "in it" : "not in it"}`,
    );
    if (via === "dynamic") providerText = dynamicProvider(d);
    const stackBytes = d.perStack.reduce((n, [, b]) => n + b, 0);
    console.log(
      `  per stack, besides its Vms:             ${stackBytes} bytes (${d.perStack.map(([t, b]) => `${t} ${b}`).join(", ")})`,
    );
  }
  const ratio = sizes.plugin.perVm / sizes.dynamic.perVm;
  console.log("");
  console.log(
    `  bytes per Vm, plugin/dynamic:           ${ratio.toFixed(3)} (${sizes.plugin.perVm} / ${sizes.dynamic.perVm}; ` +
      `saved ${sizes.dynamic.perVm - sizes.plugin.perVm} bytes per Vm)`,
  );
  console.log("");
  aim("state-size-provider-bytes", providerText, "<=", AIM_PROVIDER_BYTES, 0);
  aim("state-size-plugin-vs-dynamic-per-vm", ratio, "<=", AIM_PLUGIN_PER_VM);
}

runMain(main);
