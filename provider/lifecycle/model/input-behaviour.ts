// How a change of each Vm input is made, declared once beside the input
// schema. The diff takes from here which of its changed keys need a new VM
// and which are updated; the README's input table says it per input, and
// its check (lint) holds the descriptions to it ("Changing it replaces the
// VM."); test/lifecycle/input-behaviour.test.ts holds the diff to it.
// The record is keyed by the schema's keys with `satisfies`: an input added to
// the schema without a behaviour here is a type error, and so is a behaviour
// declared for an input the schema does not have.
import type { VmInputsSchema } from "./inputs";

/**
 * - `replace`: only the install sets it; a change makes a new VM.
 * - `downtime`: updated on the VM, which the update takes down (the server
 *   refuses the change while it runs: shutdown, change, start; or a reboot).
 * - `in-place`: updated on the VM (or on the record of where it is served)
 *   with no downtime it did not ask for.
 * - `state-only`: a change rewrites the state alone; the server is not asked.
 * - `never`: never a change of the VM: it says how a create or a change is made.
 */
export type InputBehaviour = "replace" | "downtime" | "in-place" | "state-only" | "never";

/** An input of the schema. */
export type InputKey = keyof typeof VmInputsSchema.shape;

export const INPUT_BEHAVIOUR = {
  os: "replace",
  version: "replace",
  name: "replace",
  vmid: "replace",
  user: "replace",
  password: "replace",
  sshPublicKey: "replace",
  // The server refuses set/cpu, set/memory, set/disk and set/node while the VM runs (plan/downtime.ts).
  cpu: "downtime",
  memoryMb: "downtime",
  diskGb: "downtime",
  node: "downtime",
  // A reboot of a running VM.
  rebootTriggers: "downtime",
  // A start or a shutdown: the power state asked for, not downtime as a side effect.
  running: "in-place",
  // Where the server is: state records the new connection.
  connection: "in-place",
  // Where the password is kept: it leaves state or is kept again; the VM keeps its password.
  storePassword: "state-only",
  destroyOnCreateFailure: "never",
  keepIncompleteInstall: "never",
  downtimeGroup: "never",
  allowDowntime: "never",
  adopt: "never",
} as const satisfies Record<InputKey, InputBehaviour>;

/** An input whose change is a change of the VM (or of its state): one the diff compares. */
export type ChangingInput = {
  [K in InputKey]: (typeof INPUT_BEHAVIOUR)[K] extends "never" ? never : K;
}[InputKey];

/** The inputs of one behaviour, in the declaration's order. */
export function inputsThat(behaviour: InputBehaviour): InputKey[] {
  return (Object.keys(INPUT_BEHAVIOUR) as InputKey[]).filter((k) => INPUT_BEHAVIOUR[k] === behaviour);
}

/** What each replace input's description says of it (checked against the declaration by a test). */
export const REPLACES_THE_VM = "Changing it replaces the VM.";
