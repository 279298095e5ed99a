// One lint config for the workspace (STYLE.md): floating promises, type-only imports, no deep
// imports into another package, no console in src/ (the CLI entry opts out explicitly).
import tseslint from 'typescript-eslint';

export default tseslint.config(
  // examples/ is plain CommonJS a team copies; it is linted by the last block, not ignored.
  { ignores: ['**/dist/**', '**/node_modules/**', '**/*.js', '!examples/**/*.js', '**/*.mjs', 'coverage/**'] },
  ...tseslint.configs.recommended,
  {
    files: ['**/*.ts'],
    languageOptions: { parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname } },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/consistent-type-imports': ['error', { fixStyle: 'inline-type-imports' }],
      '@typescript-eslint/no-explicit-any': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      'no-console': 'error',
      'no-restricted-imports': [
        'error',
        { patterns: [{ group: ['@sas/*/src/*', '@sas/*/dist/*', '**/packages/*/src/*', '**/services/*/src/*'], message: 'Import a package by its name; a package is a boundary.' }] },
      ],
    },
  },
  {
    // Tests are outside the packages' build; they are typed by tsconfig.lint.json instead.
    files: ['**/*.test.ts', 'test/**/*.ts', '**/src/test-support/**/*.ts'],
    languageOptions: { parserOptions: { projectService: false, project: './tsconfig.lint.json', tsconfigRootDir: import.meta.dirname } },
    rules: { 'no-console': 'off', '@typescript-eslint/no-non-null-assertion': 'off' },
  },
  {
    // The example application (not a workspace member): plain Node.js CommonJS, run without a build.
    files: ['examples/**/*.js'],
    languageOptions: {
      sourceType: 'commonjs',
      globals: Object.fromEntries(
        ['require', 'module', 'process', 'Buffer', 'URL', 'fetch', 'AbortSignal', 'setTimeout', 'console', '__dirname'].map((g) => [g, 'readonly']),
      ),
    },
    rules: {
      'no-undef': 'error',
      'no-console': 'off',
      '@typescript-eslint/no-require-imports': 'off',
      'prefer-const': 'error',
      eqeqeq: 'error',
    },
  },
);
