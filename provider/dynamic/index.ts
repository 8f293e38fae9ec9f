// The dynamic provider, as TypeScript programs use it: the Vm resource and
// its argument types. Its implementation (provider-impl.ts) is not exported
// here: the engine's dynamic provider host loads it by module path.
export { Vm } from "./vm";
export type { VmArgs, VmConnectionArgs } from "./vm";
