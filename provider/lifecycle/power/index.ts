// Shutting a VM down (falling back to a hard stop on the server's word) and
// starting it, confirmed by watching it. This index is the room's only door.
export { PROGRESS_EVERY_MS, isPowerRefusal, shutdownAndWait, stopAndWait, waitGone } from "./power";
