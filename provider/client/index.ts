// The client layer's public surface. It knows nothing of Pulumi.
export { GoPveQemuClient } from "./client";
