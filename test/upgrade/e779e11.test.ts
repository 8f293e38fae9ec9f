// State written by the release at commit e779e11, the last one landed before
// the provider core and provider/dynamic/ (test/fixtures/upgrade/e779e11):
// its stored text names its implementation at dist/provider/resource/, a
// path this release no longer has, so it must load through the package's
// "./provider-impl" export. See upgrade-suite.ts for what is checked.
import { upgradeSuite } from "./upgrade-suite";

jest.setTimeout(300_000);

upgradeSuite(
  {
    dir: "e779e11",
    stack: "landed",
    serverNames: ["cache-cc13dde6-tpjm9f-104", "spare-254", "web-121", "worker-252"],
    hasIdentity: true,
  },
  (vms) => {
    // The marked name is kept: the VM is the same one, not replaced.
    expect(vms.cache).toMatchObject({ vmid: 104, vmName: "cache-cc13dde6-tpjm9f-104", running: true });
    expect(vms.spare).toMatchObject({ node: "pve2", running: false });
  },
);
