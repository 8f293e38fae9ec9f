// The walls of provider/, checked in lint (npm run lint). Data flows one way:
// the ways in (dynamic, plugin) -> core -> lifecycle -> client -> stream reader, and inside the lifecycle
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
      name: "only-the-ways-in-know-pulumi",
      severity: "error",
      comment:
        "Only the two ways in know Pulumi: the dynamic provider (dynamic/, with its data sources in data/) and " +
        "the resource plugin (plugin/), with what both take from the engine (engine/). Everything below them " +
        "(the core, the lifecycle, the client, the settings, the cluster reading) is handed what it needs. The " +
        "tools that run the Automation API (cli/, recover/) are the one exception: they drive the engine, they " +
        "are not a layer of the provider.",
      from: { path: "^provider/", pathNot: "^provider/(dynamic|data|plugin|engine|cli|recover)/" },
      to: { path: "^node_modules/@pulumi/" },
    },
    {
      name: "lower-layers-know-no-lifecycle",
      severity: "error",
      comment: "The client (HTTP, the stream reader) knows nothing of the lifecycle or of Pulumi.",
      from: { path: "^provider/client/" },
      to: { path: ["^provider/(lifecycle|core|dynamic|plugin)/", "^node_modules/@pulumi/"] },
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
