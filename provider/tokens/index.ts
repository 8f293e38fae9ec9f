// The names the engine and stored state know this provider by, written once:
// the resource plugin's package and its type tokens, the dynamic provider's
// module and types. Plain constants, no Pulumi, so that every part of the
// provider may use them (the ways in, the package schema, discover, recover,
// the settings) without loading the SDK. Tests keep their own literals: they
// pin the wire.

/** The resource plugin's package: `pulumi-resource-gopveqemu`, its tokens, its config namespace `gopveqemu:<key>`. */
export const PACKAGE = "gopveqemu";
export const VM_TOKEN = `${PACKAGE}:index:Vm` as const;
export const GET_NODES_TOKEN = `${PACKAGE}:index:getNodes` as const;
export const GET_VMS_TOKEN = `${PACKAGE}:index:getVms` as const;

/** The dynamic provider's module: its types' middle part and its stack config namespace `goPveQemu:<key>`. */
export const DYNAMIC_MODULE = "goPveQemu";
export const DYNAMIC_VM = "Vm";
/** The resource that holds the stack's identity, and the name its provider is told apart by. */
export const STACK_IDENTITY = "StackIdentity";
export const DYNAMIC_VM_TYPE = `pulumi-nodejs:dynamic/${DYNAMIC_MODULE}:${DYNAMIC_VM}` as const;
