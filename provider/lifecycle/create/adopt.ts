// Adopt: take an existing VM under management instead of installing one.
//
// This is how a VM is imported by its VMID. Pulumi's own `import` reads a
// resource before any state exists, and a Node.js dynamic provider cannot
// serve that read (its host finds the provider in the state it does not have
// yet), so the program declares the VM with `vmid` and `adopt: true` and the
// create finds it, checks that it is the VM meant, and then converges it to
// the declared inputs exactly as an update would (its first reboot triggers
// are taken as declared: there are none before them to differ from).
import { resolveConnection, CODES, LifecycleError } from "../model";
import type { LifecycleContext } from "../core";
import type { VmInputs } from "../model";
import { vmLabel } from "../core";
import type { CreateResult } from "../install";
import { read } from "../read";
import { update } from "../update";

/**
 * A VM with less than 1 GiB lists its memory as 0 GiB, which no Vm declares
 * (512..32768 MB), and the list cannot tell 512 MB from 1023: a declared
 * size under 1 GiB is taken as the VM's (as a refresh keeps a known size that
 * truncates to the listed GiB), not set, which would shut it down at its
 * first `up`. discover writes 512, what the server gives a VM installed
 * without `ram`. Any other declared size is compared with the listed figure.
 */
function underOneGiB(listedMb: number | undefined, declaredMb: number | undefined): number | undefined {
  return listedMb === 0 && declaredMb !== undefined && declaredMb < 1024 ? declaredMb : listedMb;
}

export async function adopt(inputs: VmInputs, ctx: LifecycleContext): Promise<CreateResult> {
  const vmid = inputs.vmid;
  if (vmid === undefined) {
    throw new LifecycleError("adopt: needs vmid: the VM to adopt is the one with that VMID", { code: CODES.adopt });
  }
  const conn = resolveConnection(inputs.connection, ctx.connectionDefaults);
  const found = await read(String(vmid), undefined, { ...ctx, connectionDefaults: conn });
  if (found === undefined) {
    throw new LifecycleError(`adopt: there is no VM ${vmid} on ${conn.endpoint}; remove adopt to install one`, {
      code: CODES.adopt,
    });
  }
  const label = vmLabel(vmid, found.state.vmName);
  // The VM's Proxmox tag is its OS ("" when it has none): a different OS is a different VM.
  if (found.state.os && found.state.os !== inputs.os) {
    throw new LifecycleError(
      `adopt: VM ${label} runs ${found.state.os}, not ${inputs.os}; declare os "${found.state.os}"`,
      { code: CODES.adopt },
    );
  }
  if (inputs.name !== undefined && found.state.vmName !== `${inputs.name}-${vmid}`) {
    throw new LifecycleError(
      `adopt: VM ${vmid} is named ${JSON.stringify(found.state.vmName)}, not "${inputs.name}-${vmid}"; declare the name it has`,
      { code: CODES.adopt },
    );
  }
  ctx.reporter.info(`adopting VM ${label} on ${conn.endpoint} instead of installing one`);
  // The server keeps no reboot triggers: the declared ones are this VM's first, not a change that reboots it.
  const memoryMb = underOneGiB(found.state.memoryMb, inputs.memoryMb);
  const adopted = {
    ...found.state,
    memoryMb,
    inputs: { ...found.state.inputs, memoryMb, rebootTriggers: inputs.rebootTriggers },
  };
  const state = await update(String(vmid), adopted, inputs, ctx);
  return { id: String(vmid), state };
}
