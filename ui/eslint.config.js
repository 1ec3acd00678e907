// The UI's linter: TypeScript's recommended rules, React's rules of hooks (a missed effect
// dependency is a stale value on screen) and no import circle (docs/architecture.md "Layers":
// a module that imports one that imports it back can be neither read nor tested alone).
// `npm run lint -w ui` runs it with zero warnings allowed.
import js from "@eslint/js";
import { createNodeResolver, importX } from "eslint-plugin-import-x";
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
    plugins: { "import-x": importX },
    // The UI imports its own modules without an extension, as Vite resolves them; the rule
    // parses each imported module with TypeScript's parser to follow its imports in turn.
    settings: {
      "import-x/extensions": [".ts", ".tsx", ".js"],
      "import-x/parsers": { "@typescript-eslint/parser": [".ts", ".tsx"] },
      "import-x/resolver-next": [createNodeResolver({ extensions: [".ts", ".tsx", ".js"] })],
    },
    rules: {
      "import-x/no-cycle": ["error", { ignoreExternal: true }],
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
