// The resource plugin: the Vm, getNodes and getVms served over
// Pulumi's provider protocol (package gopveqemu) from the same lifecycle as
// the dynamic provider, for programs in any Pulumi language.
export { serve } from "./serve";
