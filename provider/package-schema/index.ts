// The Pulumi package schema of the `gopveqemu` resource plugin, made from the
// provider's zod schemas: the plugin serves it, and scripts/schema.ts writes
// it to schema/schema.json, from which the SDKs are generated.
export { defaultDownloadUrl, packageSchema } from "./package";
export { bakedDownloadUrl } from "./baked";
