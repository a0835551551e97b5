// Bundle the extension with esbuild (dist/extension.js), or, with --tests, each unit test with the
// `vscode` module replaced by test/mock/vscode.ts (out-test/*.test.js, run by `node --test`).
import { build } from 'esbuild';
import { readdirSync, rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const args = new Set(process.argv.slice(2));
const production = args.has('--production');

if (args.has('--tests')) {
  const outdir = join(root, 'out-test');
  rmSync(outdir, { recursive: true, force: true });
  const entries = readdirSync(join(root, 'test'))
    .filter((f) => f.endsWith('.test.ts'))
    .map((f) => join(root, 'test', f));
  await build({
    entryPoints: entries,
    outdir,
    bundle: true,
    platform: 'node',
    format: 'cjs',
    target: 'node20',
    sourcemap: 'inline',
    alias: { vscode: join(root, 'test', 'mock', 'vscode.ts') },
    logLevel: 'warning',
  });
} else {
  await build({
    entryPoints: [join(root, 'src', 'extension.ts')],
    outfile: join(root, 'dist', 'extension.js'),
    bundle: true,
    platform: 'node',
    format: 'cjs',
    target: 'node20',
    external: ['vscode'],
    minify: production,
    sourcemap: !production,
    logLevel: 'warning',
  });
}
