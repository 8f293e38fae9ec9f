// The dynamic provider's Vm methods over the provider core: the engine's
// bags taken apart and put back together; everything else is the core's.
export { configureDynamic, dynamicVmMethods } from "./engine-calls";
