// ESLint for the page (web/, ES modules served as they are) and its unit tests (tests/page/, run by
// `node --test`): the recommended rules, with the browser's globals for the page and Node's for the tests.
import js from "@eslint/js";
import globals from "globals";

export default [
  { ignores: ["cdk.out/**", "build/**", "node_modules/**", "infra/node/**", ".venv/**"] },
  js.configs.recommended,
  {
    files: ["web/**/*.js"],
    languageOptions: { ecmaVersion: 2024, sourceType: "module", globals: globals.browser },
    linterOptions: { reportUnusedDisableDirectives: "error" },
    rules: {
      "no-unused-vars": ["error", { args: "after-used", caughtErrors: "none" }],
      eqeqeq: ["error", "always"],
      "prefer-const": "error",
      "no-var": "error",
    },
  },
  {
    files: ["tests/page/**/*.js", "eslint.config.js"],
    languageOptions: { ecmaVersion: 2024, sourceType: "module", globals: globals.node },
    rules: { eqeqeq: ["error", "always"], "prefer-const": "error" },
  },
];
