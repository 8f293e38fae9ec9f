// The Pulumi glue's door for the rest of the package: the Vm resource and
// its argument types. The dynamic provider's implementation is not here: the
// engine loads it by module path.
export { Vm } from "./vm";
export type { VmArgs, VmConnectionArgs } from "./vm";
