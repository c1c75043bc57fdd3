import js from "@eslint/js";
import reactHooks from "eslint-plugin-react-hooks";
import globals from "globals";
import tseslint from "typescript-eslint";

const noImport = (patterns, message) => [
  "error",
  { patterns: [{ group: patterns, message }] },
];

export default tseslint.config(
  { ignores: ["dist", "src/api/schema.d.ts"] },
  {
    extends: [js.configs.recommended, ...tseslint.configs.recommended],
    files: ["**/*.{ts,tsx}"],
    languageOptions: { ecmaVersion: 2022, globals: globals.browser },
    plugins: { "react-hooks": reactHooks },
    rules: {
      "react-hooks/rules-of-hooks": "error",
      "react-hooks/exhaustive-deps": "warn",
    },
  },
  {
    // A feature reaches into itself with relative paths and never into another feature or the app.
    files: ["src/features/**/*.{ts,tsx}"],
    rules: {
      "no-restricted-imports": noImport(
        ["@/features/*", "@/app/*", "../../*"],
        "Features do not import other features or the app; share code through src/lib or src/components.",
      ),
    },
  },
  {
    files: ["src/lib/**/*.{ts,tsx}", "src/components/**/*.{ts,tsx}"],
    rules: {
      "no-restricted-imports": noImport(
        ["@/features/*", "@/app/*"],
        "Shared code must not depend on features or the app.",
      ),
    },
  },
);
