// Checking inputs at preview: against the schema, and against what the server
// says. This index is the layer's only entry point.
export { check } from "./check";
export { ServerChecks, describe } from "./server-checks";
