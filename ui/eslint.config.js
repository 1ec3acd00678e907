// The UI's linter: TypeScript's recommended rules and React's rules of hooks (a missed effect
// dependency is a stale value on screen). `npm run lint -w ui` runs it with zero warnings allowed.
import js from "@eslint/js";
import reactHooks from "eslint-plugin-react-hooks";
import { defineConfig } from "eslint/config";
import tseslint from "typescript-eslint";

export default defineConfig([
  { ignores: ["dist/", "src/bindings/"] },
  js.configs.recommended,
  tseslint.configs.recommended,
  reactHooks.configs.flat.recommended,
  {
    files: ["**/*.{ts,tsx}"],
    rules: {
      // `_name` marks what a destructuring drops on purpose (as tsc's noUnusedLocals allows).
      "@typescript-eslint/no-unused-vars": [
        "error",
        { argsIgnorePattern: "^_", varsIgnorePattern: "^_", destructuredArrayIgnorePattern: "^_" },
      ],
      // It only says the React Compiler would skip a component; this app does not build with it.
      "react-hooks/incompatible-library": "off",
    },
  },
]);
