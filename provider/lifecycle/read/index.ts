// Refreshing a VM from the server. This index is the room's only door.
export { read } from "./read";
export { foreseeSettle } from "./foresee";
