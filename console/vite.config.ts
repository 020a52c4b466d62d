/**
 * The console's web UI (React, bundled with its framework: no CDN). `npm run build` writes it to `dist/console/`,
 * which `AgentServer` serves under `{console.path}/` (relative asset URLs: the server adds a `<base href>`).
 */
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';

export default defineConfig({
  root: fileURLToPath(new URL('.', import.meta.url)),
  base: './',
  // React's automatic JSX runtime through Vite's own transform (Oxc in Vite 8; no plugin).
  oxc: { jsx: { runtime: 'automatic' } },
  logLevel: 'warn',
  build: {
    outDir: fileURLToPath(new URL('../dist/console', import.meta.url)),
    emptyOutDir: true,
    assetsDir: 'assets',
    sourcemap: false,
    // React, react-dom and the AI SDK client in one file (~500 kB, ~150 kB gzipped): fine for an operator page.
    chunkSizeWarningLimit: 1_024,
    rolldownOptions: {
      // swr's 'use client' directive means nothing outside React Server Components.
      onwarn(warning, warn) {
        if (warning.code !== 'MODULE_LEVEL_DIRECTIVE') warn(warning);
      },
    },
  },
});
