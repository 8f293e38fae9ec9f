// Refreshing a VM from the server. This index is the layer's only entry point.
export { read } from "./read";
export { foreseeSettle } from "./foresee";
