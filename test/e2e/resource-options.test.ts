// Pulumi's resource options on the dynamic provider's Vm, through the real
// engine (the same as test/consumers/yaml-options.test.ts does on the
// resource plugin; docs/resource-options.md): protect, retainOnDelete,
// ignoreChanges, additionalSecretOutputs, deleteBeforeReplace, aliases and
// deletedWith, each as Pulumi documents it. (import, replaceOnChanges and
// customTimeouts do not reach a dynamic provider: that page says why.) One
// stack; each step sets the program's VMs and their options.
import { failureOf, newFleet, type Fleet } from "./harness";

jest.setTimeout(300_000);

const SECRET_SIG = "4dabf18193072939515e22adb298388d";

type Declared = Record<string, { vm: Record<string, unknown>; options?: Record<string, unknown> }>;

let fleet: Fleet;
let now: Declared;

async function declare(vms: Declared): Promise<void> {
  now = vms;
  const vmArgs = Object.fromEntries(
    Object.entries(vms).map(([n, d]) => [n, { os: "ubuntu", version: "24.04", ...d.vm }]),
  );
  await fleet.setVms(vmArgs);
  const options = Object.fromEntries(Object.entries(vms).flatMap(([n, d]) => (d.options ? [[n, d.options]] : [])));
  await fleet.stack.setConfig("options", { value: JSON.stringify(options) });
}
const without = (...names: string[]) => Object.fromEntries(Object.entries(now).filter(([n]) => !names.includes(n)));
const onServer = () =>
  fleet.sim
    .vms()
    .map((v) => v.vmid)
    .sort();
const inState = () =>
  Object.values(fleet.resources())
    .map((r) => Number(r.id))
    .sort();

beforeAll(async () => {
  fleet = await newFleet();
});
afterAll(() => fleet?.dispose());

test("up: every VM made; additionalSecretOutputs keeps ip a secret in state, the others' ips plain", async () => {
  await declare({
    guarded: { vm: { vmid: 181 }, options: { protect: true } },
    kept: { vm: { vmid: 182 }, options: { retainOnDelete: true } },
    steady: { vm: { vmid: 183, cpu: 2 }, options: { ignoreChanges: ["cpu"] } },
    hushed: { vm: { vmid: 184 }, options: { additionalSecretOutputs: ["ip"] } },
    named: { vm: { name: "named" }, options: { deleteBeforeReplace: true } },
    old: { vm: { vmid: 186 } },
    parent: { vm: { vmid: 187 } },
    child: { vm: { vmid: 188 }, options: { deletedWith: "parent" } },
  });
  expect((await fleet.up()).summary.result).toBe("succeeded");
  expect(onServer()).toEqual(inState());
  expect((fleet.resources().hushed!.outputs.ip as Record<string, unknown>)[SECRET_SIG]).toBeDefined();
  expect(fleet.stateText()).not.toContain("192.168.0.184");
  expect(fleet.resources().steady!.outputs.ip).toBe("192.168.0.183");
});

test("ignoreChanges: a new cpu for steady is no change, and the server's VM keeps its cpu", async () => {
  await declare({ ...now, steady: { ...now.steady!, vm: { vmid: 183, cpu: 4 } } });
  expect((await fleet.preview()).changeSummary).toEqual({ same: fleet.others + 8 });
  await fleet.up();
  expect(fleet.sim.vm(183)!.cpu).toBe(2);
});

test("deleteBeforeReplace: a named VM replaced on a version change is deleted before its successor is made", async () => {
  await declare({ ...now, named: { ...now.named!, vm: { name: "named", version: "22.04" } } });
  let most = 0;
  const watch = setInterval(() => {
    most = Math.max(most, fleet.sim.vms().filter((v) => v.name.startsWith("named-")).length);
  }, 20);
  const up = await fleet.up().finally(() => clearInterval(watch));
  expect(up.summary.result).toBe("succeeded");
  expect(most).toBe(1);
  expect(
    fleet.sim
      .vms()
      .filter((v) => v.name.startsWith("named-"))
      .map((v) => v.version),
  ).toEqual(["22.04"]);
});

test("aliases: old renamed with an alias is the same VM, no change", async () => {
  const { old, ...rest } = now;
  await declare({ ...rest, renamed: { ...old!, options: { aliases: ["old"] } } });
  expect((await fleet.preview()).changeSummary).toEqual({ same: fleet.others + 8 });
  await fleet.up();
  expect(fleet.resources().renamed!.id).toBe("186");
});

test("retainOnDelete and deletedWith: removed from the program, each leaves state and its VM stays on the server", async () => {
  await declare(without("kept", "parent", "child"));
  expect((await fleet.up()).summary.result).toBe("succeeded");
  expect(inState()).not.toContain(182);
  expect(inState()).not.toContain(188);
  expect(fleet.sim.vm(182)).toBeDefined();
  expect(fleet.sim.vm(188)).toBeDefined();
  expect(fleet.sim.vm(187)).toBeUndefined();
});

test("protect: destroy refuses the protected VM and deletes nothing of it; unprotected, destroy removes it", async () => {
  expect(await failureOf(fleet.destroy())).toMatch(/protect/i);
  expect(fleet.sim.vm(181)).toBeDefined();
  await declare({ ...now, guarded: { vm: { vmid: 181 } } });
  await fleet.up();
  await fleet.destroy();
  expect(inState()).toEqual([]);
  expect(onServer()).toEqual([182, 188]);
});
