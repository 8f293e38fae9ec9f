// Creating a VM: an install, or the adoption of one that exists. This index is
// the room's only door.
export { create } from "./create";
