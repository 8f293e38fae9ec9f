// storePassword against the simulator: the VM gets the password, state keeps
// only its hash, and switching the option either way rewrites state without
// a single write to the server.
import { check, create, update } from "../../provider/lifecycle";
import type { VmInputs, VmState } from "../../provider/lifecycle";
import { passwordMatches } from "../../provider/lifecycle/model/password";
import { startHarness } from "./harness";
import type { Harness } from "./harness";

const PASSWORD = "kept-out-of-state-1";

let h: Harness;
beforeEach(async () => {
  h = await startHarness();
});
afterEach(() => h.close());

/** The checked inputs, and the password as the glue hands it back to create. */
function checked(news: Record<string, unknown>, olds: Record<string, unknown> = {}) {
  const r = check(olds, { os: "ubuntu", version: "24.04", name: "sp", ...news });
  expect(r.failures).toEqual([]);
  return {
    inputs: r.inputs,
    install: { ...r.inputs, ...(r.withheldPassword ? { password: r.withheldPassword } : {}) },
  };
}

/** Requests other than reads since `before`. */
function writesSince(before: Record<string, number>): Record<string, number> {
  const out: Record<string, number> = {};
  for (const [k, v] of Object.entries(h.sim.stats().requests))
    if (k !== "list" && k !== "status" && v > (before[k] ?? 0)) out[k] = v - (before[k] ?? 0);
  return out;
}

async function updated(id: string, state: VmState, news: VmInputs) {
  const before = { ...h.sim.stats().requests };
  const next = await update(id, state, news, h.ctx());
  return { next, writes: writesSince(before) };
}

test("storePassword false: the VM gets the password; state holds its hash and not the password", async () => {
  const { inputs, install } = checked({ password: PASSWORD, storePassword: false });
  const { state } = await create(install as VmInputs, h.ctx());
  expect(h.sim.installs()[0]!.cipassword).toBe(PASSWORD);
  expect(JSON.stringify(state)).not.toContain(PASSWORD);
  expect(state.password).toBeUndefined();
  expect(state.passwordHash).toBe(inputs.passwordHash);
  expect(passwordMatches(PASSWORD, state.passwordHash!)).toBe(true);
  expect(state.inputs?.storePassword).toBe(false);
});

test("switched on for a VM whose password state holds: an update that drops it, no server write", async () => {
  const { id, state } = await create(checked({ password: PASSWORD }).install as VmInputs, h.ctx());
  expect(state.password).toBe(PASSWORD);
  const { inputs } = checked({ password: PASSWORD, storePassword: false }, { ...state.inputs, password: PASSWORD });
  const { next, writes } = await updated(id, state, inputs);
  expect(writes).toEqual({});
  expect(JSON.stringify(next)).not.toContain(PASSWORD);
  expect(passwordMatches(PASSWORD, next.passwordHash!)).toBe(true);
  expect(next.vmid).toBe(state.vmid);
});

test("switched back off: the password is stored again and the hash goes, no server write", async () => {
  const first = checked({ password: PASSWORD, storePassword: false });
  const { id, state } = await create(first.install as VmInputs, h.ctx());
  const { next, writes } = await updated(id, state, checked({ password: PASSWORD }, first.inputs).inputs);
  expect(writes).toEqual({});
  expect(next.password).toBe(PASSWORD);
  expect(next.passwordHash).toBeUndefined();
});

test("a cpu change on a VM whose password is not stored keeps the hash and stores no password", async () => {
  const first = checked({ password: PASSWORD, storePassword: false });
  const { id, state } = await create(first.install as VmInputs, h.ctx());
  const { inputs } = checked({ password: PASSWORD, storePassword: false, cpu: 4 }, first.inputs);
  expect(inputs.passwordHash).toBe(first.inputs.passwordHash);
  const { next, writes } = await updated(id, state, inputs);
  expect(writes).toEqual({ shutdown: 1, setCpu: 1, start: 1 });
  expect(next.cpu).toBe(4);
  expect(next.passwordHash).toBe(first.inputs.passwordHash);
  expect(next.password).toBeUndefined();
});
