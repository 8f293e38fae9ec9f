// Updating a VM in place: settle, plan, then run each step, streamed ones
// watched to their end. This index is the room's only door.
export { update } from "./update";
