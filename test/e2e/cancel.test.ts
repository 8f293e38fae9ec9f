// Cancelling a deployment mid-install, through the real engine, in the cases
// that can be driven deterministically (what each case does is measured and
// written in the README's "Failure behaviour"):
// - the Automation API's abort (SIGINT to `pulumi`, as one Ctrl-C): the
//   engine waits for the install in flight, records the VM, and the next
//   `up` is a no-op;
// - a second Ctrl-C: the engine stops the provider, which ends its
//   operations at once; the create is left as a pending operation; the next
//   `up` takes the VM over without waiting out the install's bound, and
//   upWithRecovery leaves no pending create;
// - `pulumi` killed (kill -9): the provider process sees it and ends while
//   the install is still going on on the server, instead of following it and
//   living on; the language host sees the engine gone and leaves with its
//   program, so nothing of the deployment is left behind.
import { spawn } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { fileJournal } from "../../provider/lifecycle";
import { upWithRecovery } from "../../provider/recover";
import { alive } from "../../scripts/cli-stack";
import { watchDeployment } from "../../scripts/deployment-processes";
import { doubleCtrlC, until } from "./ctrl-c";
import { newFleet, orphans, type Fleet } from "./harness";

jest.setTimeout(300_000);

let fleet: Fleet;
beforeEach(async () => {
  // Installs of about 36 s: long enough to act in the middle of one.
  fleet = await newFleet({ speed: 5 });
  await fleet.setVms({ web: { os: "ubuntu", version: "24.04", name: "web", vmid: 160 } });
});
afterEach(() => fleet.dispose());

test("the Automation API's abort (one Ctrl-C): the install in flight ends, the VM is recorded, the next up is a no-op", async () => {
  const abort = new AbortController();
  const up = fleet.up({ signal: abort.signal });
  await until(() => fleet.sim.stats().installsStarted > 0);
  fleet.sim.settings({ speed: 2000 }); // the rest of the install, quickly
  abort.abort();
  await expect(up).rejects.toThrow(/cancel/i);

  expect(fleet.resources().web?.id).toBe("160");
  expect(fleet.resources().web!.outputs.running).toBe(true);
  expect(orphans(fleet)).toEqual([]);
  expect(fleet.pendingOperations()).toEqual([]);

  const next = await fleet.up();
  expect(next.summary.resourceChanges).toEqual({ same: 3 }); // the stack, its identity, the VM
  expect(fleet.sim.vms().map((v) => v.vmid)).toEqual([160]);
});

test("pulumi killed mid-install: within 10 s no process of its deployment is left, while the server is still installing", async () => {
  const pulumi = spawn("pulumi", ["up", "--yes", "--skip-preview", "--non-interactive"], {
    cwd: fleet.workDir,
    env: { ...process.env, ...fleet.env },
    stdio: "ignore",
  });
  const exited = new Promise((resolve) => pulumi.on("exit", resolve));
  const deployment = watchDeployment(pulumi.pid!, fleet.workDir);
  await until(() => fleet.sim.stats().installsStarted > 0);
  await until(() => deployment.seen().some((p) => p.args.includes("cmd/dynamic-provider")));
  // All three are there to be left behind: the language host, its program, the provider.
  expect(deployment.seen().map((p) => p.args)).toEqual(
    expect.arrayContaining([
      expect.stringMatching(/pulumi-language-nodejs 127\.0\.0\.1:\d+$/),
      expect.stringContaining("cmd/run --monitor="),
      expect.stringContaining("cmd/dynamic-provider/index.js"),
    ]),
  );

  pulumi.kill("SIGKILL");
  await exited;
  const left = await deployment.leftoversAfter(10_000);
  for (const p of left) if (alive(p.pid)) process.kill(p.pid, "SIGKILL"); // not to outlive a failed test
  expect(left).toEqual([]);
  // The install is still under way on the server (the provider did not wait for it).
  expect(fleet.sim.stats().installsSucceeded).toBe(0);
  expect(fleet.sim.stats().activeFlows).toBeGreaterThan(0);
  // and the state says a create was interrupted
  expect(fleet.pendingOperations()).toEqual([{ type: "creating", name: "web" }]);
});

test("a second Ctrl-C: pulumi and the provider end at once, the VM being installed is a pending create", async () => {
  await doubleCtrlC(fleet, () => fleet.sim.stats().installsStarted > 0);
  expect(fleet.sim.stats().installsSucceeded).toBe(0);
  expect(fleet.pendingOperations()).toEqual([{ type: "creating", name: "web" }]);
});

test("a second Ctrl-C, then up once the server finished: the takeover is recorded at once as unconfirmed, no pending create is left, and the refresh after the bound confirms it", async () => {
  // The init script's bound one minute (the rest at their floor): the bound passes within the test,
  // while the default settleWaitMs (30 s) ends the takeover before it.
  const bound = (ms: number) => ({ value: String(ms) });
  await fleet.stack.setAllConfig({
    "goPveQemu:initScriptBoundMs": bound(60_000),
    "goPveQemu:sshWaitBoundMs": bound(1_000),
    "goPveQemu:commandBoundMs": bound(1_000),
    "goPveQemu:imageDownloadBoundMs": bound(1_000),
  });
  fleet.sim.addFault({ op: "install", step: "SSH initialization", kind: "delay", ms: 1, times: 1 });
  await doubleCtrlC(fleet, () => fleet.sim.stats().faultsFired > 0);
  expect(fleet.pendingOperations()).toEqual([{ type: "creating", name: "web" }]);
  fleet.sim.settings({ speed: 2000 });
  await fleet.sim.idle(); // the install finished on the server, reboot included, while no one listened
  expect(fleet.sim.stats().installsSucceeded).toBe(1);

  const journal = fs.mkdtempSync(path.join(os.tmpdir(), "gpq-e2e-journal-"));
  const t0 = Date.now();
  const next = await upWithRecovery(fleet.stack, {}, { journal: fileJournal(journal) });
  const took = Date.now() - t0;
  fs.rmSync(journal, { recursive: true, force: true });
  expect(took).toBeLessThan(120_000);
  expect(next.summary.result).toBe("succeeded");
  const web = fleet.resources().web!;
  expect(web.id).toBe("160");
  expect(web.outputs).toMatchObject({ vmName: "web-160", running: true, installState: "unconfirmed" });
  expect(next.stdout).toMatch(/VM web-160 \(160\) is recorded as unconfirmed \(.*\); it can be settled from /);
  expect(fleet.sim.vms().map((v) => v.vmid)).toEqual([160]);
  expect(orphans(fleet)).toEqual([]);
  expect(fleet.pendingOperations()).toEqual([]);

  const settleBy = (web.outputs.installLost as { settleBy: number }).settleBy;
  await new Promise((r) => setTimeout(r, Math.max(0, settleBy - Date.now() + 1_000)));
  await fleet.refresh();
  expect(fleet.resources().web!.outputs).toMatchObject({ installComplete: true, running: true });
  expect(fleet.resources().web!.outputs.installState).toBeUndefined();
});
