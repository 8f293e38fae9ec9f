// Removing a VM: the destroy every operation shares, and the delete operation.
// This index is the room's only door.
export { destroyVm, disabledMessage, remove } from "./delete";
