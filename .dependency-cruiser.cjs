// The layout rules of provider/, checked in lint (npm run lint). Data flows
// one way: a way in (dynamic, plugin) -> core -> lifecycle -> client ->
// stream reader, and inside the lifecycle each layer may use only the layers
// below it, through their entry points (their index.ts).
/** The lifecycle's layers, lowest first: a layer may import only layers before it. */
const LAYERS = ["model", "core", "observe", "power", "delete", "plan", "install", "check", "read", "update", "create"];

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
      name: "folder-entry-points",
      severity: "error",
      comment: "A folder of provider/ is entered by its index.ts only.",
      from: { path: "^provider/([^/]+)/" },
      to: { path: "^provider/[^/]+/", pathNot: ["^provider/$1/", "^provider/[^/]+/index\\.ts$"] },
    },
    {
      name: "lifecycle-layer-entry-points",
      severity: "error",
      comment: "A layer of the lifecycle is entered by its index.ts only.",
      from: { path: `${L}/([^/]+)/` },
      to: { path: `${L}/[^/]+/`, pathNot: [`${L}/$1/`, `${L}/[^/]+/index\\.ts$`] },
    },
    {
      name: "layers-skip-lifecycle-index",
      severity: "error",
      comment: "The lifecycle's own index.ts is for the rest of the provider; its layers use each other's.",
      from: { path: `${L}/[^/]+/` },
      to: { path: `${L}/index\\.ts$` },
    },
    {
      name: "subfolder-entry-points",
      severity: "error",
      comment:
        "A folder inside a layer of the lifecycle (install/rules/, ...) is entered by its index.ts from outside it.",
      from: { path: "^provider/", pathNot: `${L}/[^/]+/[^/]+/` },
      to: { path: `${L}/[^/]+/[^/]+/`, pathNot: `${L}/[^/]+/[^/]+/index\\.ts$` },
    },
    {
      name: "subfolder-entry-points-between-subfolders",
      severity: "error",
      comment: "A folder inside a layer of the lifecycle enters its neighbours by their index.ts too.",
      from: { path: `(${L}/[^/]+/[^/]+)/` },
      to: { path: `${L}/[^/]+/[^/]+/`, pathNot: ["^$1/", `${L}/[^/]+/[^/]+/index\\.ts$`] },
    },
    ...LAYERS.map((layer, i) => ({
      name: `layer-order-${layer}`,
      severity: "error",
      comment: `${layer} may use only the layers below it (${LAYERS.slice(0, i).join(", ") || "none"}).`,
      from: { path: `${L}/${layer}/` },
      to: { path: `${L}/(${LAYERS.slice(i + 1).join("|") || "$^"})/` },
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
