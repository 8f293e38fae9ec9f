// The client discover hands to the lifecycle's read: every VM is read from
// one snapshot of the list (one request, and every VM described as of the
// same moment), `status` is asked of the server as read asks it, and a write
// is refused outright. Discover only looks: nothing it does may change the
// server.
import type { GoPveQemuApi, VmList } from "../client";

function refused(what: string): Promise<never> {
  return Promise.reject(new Error(`discover does not change the server; ${what} was not sent`));
}

export function readOnlyClient(server: GoPveQemuApi, snapshot: VmList): GoPveQemuApi {
  return {
    health: (opts) => server.health(opts),
    list: async () => snapshot,
    status: (vmid, opts) => server.status(vmid, opts),
    install: () => refused("install"),
    start: (vmid) => refused(`start of VM ${vmid}`),
    reboot: (vmid) => refused(`reboot of VM ${vmid}`),
    migrate: (vmid) => refused(`migration of VM ${vmid}`),
    stop: (vmid) => refused(`stop of VM ${vmid}`),
    shutdown: (vmid) => refused(`shutdown of VM ${vmid}`),
    destroy: (vmid) => refused(`destroy of VM ${vmid}`),
    setCpu: (vmid) => refused(`set/cpu of VM ${vmid}`),
    setMemory: (vmid) => refused(`set/memory of VM ${vmid}`),
    growDisk: (vmid) => refused(`set/disk of VM ${vmid}`),
    close: () => server.close(),
  };
}
