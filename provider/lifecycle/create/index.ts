// Creating a VM: an install, or the adoption of one that exists. This index is
// the layer's only entry point.
export { create } from "./create";
