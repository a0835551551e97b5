// Build the `ascendopt` Python package from the repository into extension/server/ (a wheel), so
// the .vsix carries the server the extension installs into its private environment.
// Python: $ASCENDOPT_PYTHON, else the repository's .venv, else python3.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ext = join(dirname(fileURLToPath(import.meta.url)), '..');
const repo = join(ext, '..');
const out = join(ext, 'server');
const venv = join(repo, '.venv', process.platform === 'win32' ? 'Scripts/python.exe' : 'bin/python');
const python = process.env.ASCENDOPT_PYTHON || (existsSync(venv) ? venv : 'python3');

mkdirSync(out, { recursive: true });
for (const f of readdirSync(out)) {
  if (/^ascendopt-.*\.(whl|tar\.gz)$/.test(f)) {
    rmSync(join(out, f));
  }
}
try {
  // setuptools is chatty about package data; show its output only when the build fails.
  execFileSync(python, ['-m', 'pip', 'wheel', '--quiet', '--disable-pip-version-check', '--no-deps', '--wheel-dir', out, repo], {
    stdio: ['ignore', 'pipe', 'pipe'],
    maxBuffer: 64 * 1024 * 1024,
  });
} catch (err) {
  process.stderr.write(String(err.stdout ?? '') + String(err.stderr ?? ''));
  throw err;
}
const built = readdirSync(out).filter((f) => f.endsWith('.whl'));
if (built.length !== 1) {
  throw new Error(`expected one wheel in ${out}, found ${built.join(', ') || 'none'}`);
}
console.log(`bundled ${built[0]}`);
