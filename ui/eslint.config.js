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
      // The two rules below serve the React Compiler, which this app does not build with. The
      // effects that set state (CliTool, Sidebar, Conversation) start a read when something opens
      // and show a loading flag first: the pattern is meant, and rewriting it would change what
      // a first frame shows. `incompatible-library` only says the compiler would skip a component.
      "react-hooks/set-state-in-effect": "off",
      "react-hooks/incompatible-library": "off",
    },
  },
]);
