// Keys the engine and the ways in keep beside a VM's properties in the
// engine's property bags, never the lifecycle's business: the dynamic
// provider's serialized text, the resource's URN (the dynamic provider's Vm
// passes it as an input), and the stack's identity (an input of every Vm on
// both ways in: the StackIdentity resource's value on the dynamic provider,
// the identity the VM was made with on the resource plugin). Written once.

export const PROVIDER_KEY = "__provider";
export const URN_KEY = "__urn";
export const IDENTITY_KEY = "__stackIdentity";
