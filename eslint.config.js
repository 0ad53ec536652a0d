// Type-aware lint: no `any`, no unsafe use of untyped values, no floating or misused promises,
// exhaustive switches, type-only imports marked, and no `.only` left in a test.
import js from '@eslint/js'
import tseslint from 'typescript-eslint'

export default tseslint.config(
  { ignores: ['build/**', 'node_modules/**', 'src/grpc/generated/**', '*.js', '*.mjs'] },
  js.configs.recommended,
  ...tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: { parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname } },
    rules: {
      '@typescript-eslint/no-explicit-any': 'error',
      // node:test's describe/it return promises that the runner itself awaits.
      '@typescript-eslint/no-floating-promises': ['error', {
        allowForKnownSafeCalls: [{ from: 'package', package: 'node:test', name: ['describe', 'it', 'test', 'suite'] }],
      }],
      '@typescript-eslint/no-misused-promises': 'error',
      '@typescript-eslint/switch-exhaustiveness-check': 'error',
      '@typescript-eslint/consistent-type-imports': 'error',
      'no-restricted-properties': ['error',
        { object: 'describe', property: 'only', message: 'no .only in committed tests' },
        { object: 'it', property: 'only', message: 'no .only in committed tests' },
        { object: 'test', property: 'only', message: 'no .only in committed tests' }],
    },
  },
)
