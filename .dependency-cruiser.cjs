// The walls of provider/, checked in lint (npm run lint). Data flows one way:
// resource -> lifecycle -> client -> stream reader, and inside the lifecycle
// each room may use only the rooms below it, through their doors.
/** The lifecycle's rooms, lowest first: a room may import only rooms before it. */
const ROOMS = ["model", "core", "observe", "power", "delete", "plan", "install", "check", "read", "update", "create"];

const L = "^provider/lifecycle";

/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: "no-circular",
      severity: "error",
      comment: "No import circles, type-only ones included.",
      from: { path: "^provider/" },
      to: { circular: true },
    },
    {
      name: "folder-doors",
      severity: "error",
      comment: "A folder of provider/ is entered by its index.ts only.",
      from: { path: "^provider/([^/]+)/" },
      to: { path: "^provider/[^/]+/", pathNot: ["^provider/$1/", "^provider/[^/]+/index\\.ts$"] },
    },
    {
      name: "room-doors",
      severity: "error",
      comment: "A room of the lifecycle is entered by its index.ts only.",
      from: { path: `${L}/([^/]+)/` },
      to: { path: `${L}/[^/]+/`, pathNot: [`${L}/$1/`, `${L}/[^/]+/index\\.ts$`] },
    },
    {
      name: "rooms-use-no-front-door",
      severity: "error",
      comment: "The lifecycle's own door is for the rest of the provider; its rooms use each other's.",
      from: { path: `${L}/[^/]+/` },
      to: { path: `${L}/index\\.ts$` },
    },
    ...ROOMS.map((room, i) => ({
      name: `room-order-${room}`,
      severity: "error",
      comment: `${room} may use only the rooms below it (${ROOMS.slice(0, i).join(", ") || "none"}).`,
      from: { path: `${L}/${room}/` },
      to: { path: `${L}/(${ROOMS.slice(i + 1).join("|") || "$^"})/` },
    })),
    {
      name: "core-knows-no-pulumi",
      severity: "error",
      comment:
        "The lifecycle, the client and the provider core know nothing of Pulumi: each way in hands the core " +
        "what it needs of the engine. The one exception is recover/ (a tool, not a layer of the provider), " +
        "which runs the Automation API.",
      from: { path: "^provider/(lifecycle|client|core)/" },
      to: { path: "^node_modules/@pulumi/" },
    },
    {
      name: "lower-layers-know-no-lifecycle",
      severity: "error",
      comment: "The client (HTTP, the stream reader) knows nothing of the lifecycle or of Pulumi.",
      from: { path: "^provider/client/" },
      to: { path: ["^provider/(lifecycle|resource)/", "^node_modules/@pulumi/"] },
    },
  ],
  options: {
    doNotFollow: { path: "node_modules" },
    exclude: { path: "^(dist|test|bench|scripts|simulator|examples)/" },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: "tsconfig.json" },
    enhancedResolveOptions: { extensions: [".ts", ".js"] },
  },
};
