// State written by release v0.1.0 (commit 7078bfc; test/fixtures/upgrade/v0.1.0):
// three named VMs. See upgrade-suite.ts for what is checked.
import { upgradeSuite } from "./upgrade-suite";

jest.setTimeout(300_000);

upgradeSuite({ dir: "v0.1.0", stack: "v010", serverNames: ["spare-100", "web-121", "worker-101"] });
