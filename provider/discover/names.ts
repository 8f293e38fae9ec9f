// Resource names for the declared VMs, from the VMs' names: `web-120` is
// declared as "web", an unnamed `120` as "vm-120". Names that would be the
// same for several VMs (web-120 and web-121) take their VMID (`web-120`,
// `web-121`) for all of them, not only for the second, so that no VM's name
// depends on which other VMs happen to exist. A clash that remains (a VM
// named like another's new name) takes its own VMID too, then a counter.
export interface Named {
  vmid: number;
  /** The VM's name without the server's `-<vmid>` (read's `name`); undefined for a VM named by its VMID alone. */
  name?: string;
}

/** The resource name of each VM, by VMID. */
export function resourceNames(vms: readonly Named[]): Map<number, string> {
  const byVmid = [...vms].sort((a, b) => a.vmid - b.vmid);
  const base = new Map(byVmid.map((vm) => [vm.vmid, baseName(vm)]));
  const count = new Map<string, number>();
  for (const b of base.values()) count.set(b, (count.get(b) ?? 0) + 1);
  const used = new Set<string>();
  const out = new Map<number, string>();
  for (const vm of byVmid) {
    const b = base.get(vm.vmid)!;
    let name = count.get(b)! > 1 ? `${b}-${vm.vmid}` : b;
    if (used.has(name)) name = `${b}-${vm.vmid}`;
    for (let n = 2; used.has(name); n++) name = `${b}-${vm.vmid}-${n}`;
    used.add(name);
    out.set(vm.vmid, name);
  }
  return out;
}

/** The VM's name without the server's `-<vmid>`, as a resource name: letters, digits and hyphens. */
function baseName(vm: Named): string {
  const clean = (vm.name ?? "")
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "-")
    .replace(/^-+|-+$/g, "");
  return clean === "" ? `vm-${vm.vmid}` : clean;
}
