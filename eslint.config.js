// Type-aware linting (typescript-eslint): the checks a compiler does not make and a test may not
// catch, such as a promise nobody awaits. Formatting is Prettier's (.prettierrc.json), not ESLint's.
// docs/tests.md says what each rule is for; a rule is off only with its reason here.
import tseslint from "typescript-eslint";

const UNSAFE_ANY = [
  "no-unsafe-argument",
  "no-unsafe-assignment",
  "no-unsafe-call",
  "no-unsafe-member-access",
  "no-unsafe-return",
];
const off = (rules) => Object.fromEntries(rules.map((rule) => [`@typescript-eslint/${rule}`, "off"]));

export default tseslint.config(
  { ignores: ["node_modules/", ".netlify/", "dist/", "test/output/", "netlify/resource/", "test/fixtures/"] },
  ...tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: {
      parserOptions: {
        // The .mjs files (build plugin, packaged command) are outside tsconfig.json: typed as plain JS.
        projectService: {
          allowDefaultProject: ["*.js", "netlify/plugin/*.mjs", "scripts/*.mjs", "test/helpers/*.mjs"],
        },
        tsconfigRootDir: import.meta.dirname,
      },
    },
    linterOptions: { reportUnusedDisableDirectives: "error" },
    rules: {
      // The rules this project asks for beyond the recommended set.
      "@typescript-eslint/switch-exhaustiveness-check": "error",
      "@typescript-eslint/no-unnecessary-condition": "error",
      // A name starting with "_" is one left out on purpose (a rest pattern that omits a field).
      "@typescript-eslint/no-unused-vars": [
        "error",
        {
          argsIgnorePattern: "^_",
          varsIgnorePattern: "^_",
          destructuredArrayIgnorePattern: "^_",
          ignoreRestSiblings: true,
        },
      ],
      // Passing on what was caught, or an AbortSignal's reason, unchanged is right; a literal is still refused.
      "@typescript-eslint/prefer-promise-reject-errors": [
        "error",
        { allowThrowingAny: true, allowThrowingUnknown: true },
      ],
      // Off: an `async` function without `await` is how an implementation of a Promise-returning
      // interface turns a throw into a rejection; the rule would push toward sync throws.
      "@typescript-eslint/require-await": "off",
    },
  },
  {
    // Plain JavaScript has no types to be unsafe about: every imported value is `any`.
    files: ["**/*.mjs", "**/*.js"],
    rules: off(UNSAFE_ANY),
  },
  {
    files: ["test/**"],
    rules: {
      // Tests read JSON answers as `any` and check them with expect(), which fails on a wrong shape.
      ...off(UNSAFE_ANY),
      // A `let server: Server` filled in beforeAll is unassigned in afterAll when setup failed, whatever
      // its type says: the teardown's `server?.stop()` is right, and this rule would remove it.
      "@typescript-eslint/no-unnecessary-condition": "off",
    },
  },
);
