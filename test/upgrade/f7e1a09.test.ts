// State written by the release at commit f7e1a09, the last one before the
// resource plugin (test/fixtures/upgrade/f7e1a09): three named VMs and one
// whose name carries the stack's mark, with that release's serialized
// provider and its StackIdentity. See upgrade-suite.ts for what is checked.
import { upgradeSuite } from "./upgrade-suite";

jest.setTimeout(300_000);

upgradeSuite(
  {
    dir: "f7e1a09",
    stack: "landed",
    serverNames: ["cache-8f08fcf1-tpgo59-104", "spare-101", "web-121", "worker-103"],
    hasIdentity: true,
  },
  (vms) => {
    // The marked name is kept: the VM is the same one, not replaced.
    expect(vms.cache).toMatchObject({ vmid: 104, vmName: "cache-8f08fcf1-tpgo59-104", running: true });
  },
);
