// What both ways in (the dynamic provider and the resource plugin) take from
// the Pulumi engine and its SDK alike: the engine's Log RPC, its marker of an
// unknown value, and the keys the engine's bags carry beside a VM's
// properties. The provider core knows none of these.
export { engineLogTransport } from "./log-rpc";
export { IDENTITY_KEY, PROVIDER_KEY, URN_KEY } from "./hidden-keys";
export { unknownValue as ENGINE_UNKNOWN } from "@pulumi/pulumi/runtime/rpc";
export { CONNECTION_SECRETS, SECRET_INPUTS, SECRET_OUTPUTS, carriesCredentials } from "./secrets";
export { fromSdk, patchAddService } from "./grpc-add-service-patch";
export { withTimeoutCalls } from "./timeout-rpc";
