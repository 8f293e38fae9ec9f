// State written by the release at commit cc006c1 (test/fixtures/upgrade/cc006c1):
// three named VMs and one whose name is derived from its URN, with the
// serialized provider of that release (one `configure` method). See
// upgrade-suite.ts for what is checked.
import { upgradeSuite } from "./upgrade-suite";

jest.setTimeout(300_000);

upgradeSuite(
  { dir: "cc006c1", stack: "prev", serverNames: ["cache-2fe256e7-104", "spare-101", "web-121", "worker-103"] },
  (vms) => {
    // The derived name is kept: the VM is the same one, not replaced.
    expect(vms.cache).toMatchObject({ vmid: 104, vmName: "cache-2fe256e7-104", running: true });
  },
);
