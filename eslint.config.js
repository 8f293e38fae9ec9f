// Lint: eslint's and typescript-eslint's recommended rules; formatting is prettier's job.
const js = require("@eslint/js");
const tseslint = require("typescript-eslint");

const AT_TOP = ["Program >", "Program > ExportNamedDeclaration >"];
const COLLECTION = "/^(Map|Set|WeakMap|WeakSet)$/";
const READONLY = "/^Readonly(Set|Map)$/";
const MODULE_STATE = AT_TOP.flatMap((top) => [
  {
    selector: `${top} VariableDeclaration[kind=/^(let|var)$/]`,
    message: "No module-level let/var in provider/: process state belongs to the ProviderCore (provider/core).",
  },
  {
    selector:
      `${top} VariableDeclaration > VariableDeclarator[init.type='NewExpression'][init.callee.name=${COLLECTION}]` +
      `:not([id.typeAnnotation.typeAnnotation.typeName.name=${READONLY}])`,
    message:
      "No module-level Map/Set/WeakMap in provider/: process state belongs to the ProviderCore (provider/core); " +
      "a true constant is typed ReadonlySet/ReadonlyMap.",
  },
]);

module.exports = tseslint.config(
  {
    ignores: [
      "dist/",
      "node_modules/",
      "coverage/",
      ".pulumi-state/",
      ".sim-state/",
      "bench/out/",
      ".e2e-work/",
      "sdk/",
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: {
      globals: {
        require: "readonly",
        module: "writable",
        process: "readonly",
        __dirname: "readonly",
        console: "readonly",
        setTimeout: "readonly",
        setImmediate: "readonly",
      },
    },
    rules: {
      // The dynamic provider loads its implementation with require() by path on purpose.
      "@typescript-eslint/no-require-imports": "off",
      "@typescript-eslint/no-unused-vars": ["error", { argsIgnorePattern: "^_", varsIgnorePattern: "^_" }],
    },
  },
  {
    // The provider's functions and files stay short enough to read at once; a longer one is split by concern.
    files: ["provider/**/*.ts"],
    rules: {
      "max-lines-per-function": ["error", { max: 60 }],
      "max-lines": ["error", { max: 250 }],
      // No process state in module scope: what a provider process keeps lives in its one ProviderCore
      // (provider/core), passed to whoever needs it. A module-level collection is allowed only as a true
      // constant, typed ReadonlySet or ReadonlyMap.
      "no-restricted-syntax": ["error", ...MODULE_STATE],
    },
  },
);
