// Removing a VM: the destroy every operation shares, and the delete operation.
// This index is the layer's only entry point.
export { destroyVm, disabledMessage, remove } from "./delete";
