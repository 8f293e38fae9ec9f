// Compile-time tests, run by `tsc` in the type check (npm test): VmArgs, the
// connection shapes and the input schema cannot drift apart. Nothing here runs.
import type * as pulumi from "@pulumi/pulumi";
import type { VmArgs, VmConnectionArgs } from "go-pve-qemu-pulumi";
import type { ConnectionSettings } from "../../provider/lifecycle/model/connection";
import type { ConnectionInput, DeclaredInputs as VmInputs } from "../../provider/lifecycle/model/inputs";
import type { Desired } from "../../provider/lifecycle/model/state";

type Equal<A, B> = (<T>() => T extends A ? 1 : 2) extends <T>() => T extends B ? 1 : 2 ? true : false;
type Assert<T extends true> = T;
type RequiredKeys<T> = { [K in keyof T]-?: object extends Pick<T, K> ? never : K }[keyof T];

// The same names, and the same required ones, as the schema.
export type SameKeys = Assert<Equal<keyof VmArgs, keyof VmInputs>>;
export type SameRequired = Assert<Equal<RequiredKeys<VmArgs>, "os" | "version">>;
export type SameRequiredAsSchema = Assert<Equal<RequiredKeys<VmArgs>, RequiredKeys<VmInputs>>>;
// Each value is an Input of the schema's type.
export type OsIsTheSchemasEnum = Assert<Equal<VmArgs["os"], pulumi.Input<VmInputs["os"]>>>;
export type CpuIsAnInputNumber = Assert<Equal<VmArgs["cpu"], pulumi.Input<number> | undefined>>;
// The connection shape is one: the input's, the defaults' and VmConnectionArgs' keys agree.
export type OneConnectionShape = Assert<Equal<keyof ConnectionInput, keyof ConnectionSettings>>;
export type ConnectionArgsKeys = Assert<Equal<keyof VmConnectionArgs, keyof ConnectionInput>>;
// What state keeps as desired inputs is a subset of the inputs (minus the secrets kept apart).
export type DesiredIsInputs = Assert<Equal<Exclude<keyof Desired, keyof VmInputs>, never>>;

declare const cpuFromAnotherResource: pulumi.Output<number>;
declare const endpoint: Promise<string>;

export const full: VmArgs = {
  os: "ubuntu",
  version: "24.04",
  cpu: cpuFromAnotherResource,
  rebootTriggers: [cpuFromAnotherResource.apply(String), "fixed"],
  connection: { endpoint, headers: { "x-a": endpoint } },
  keepIncompleteInstall: true,
};

// @ts-expect-error an OS the schema does not allow
export const badOs: VmArgs = { os: "fedora", version: "40" };
// @ts-expect-error a property the resource does not have
export const unknownProperty: VmArgs = { os: "debian", version: "12", cpus: 4 };
// @ts-expect-error version is required
export const missingVersion: VmArgs = { os: "debian" };
// @ts-expect-error cpu is a number
export const cpuAsText: VmArgs = { os: "debian", version: "12", cpu: "4" };
