import { strict as assert } from 'node:assert';
import { test } from 'node:test';
import * as path from 'node:path';
import { bundledPackage, ensurePrivateEnv, envPython, pipProgress, SetupError, type PrivateEnvDeps } from '../src/privateEnv';

interface Fake extends PrivateEnvDeps {
  fs: Map<string, string>;
  runs: string[];
  reports: string[];
  asked: string[];
}

function fake(over: Partial<PrivateEnvDeps> & { bundle?: string[]; failOn?: string; consentAnswer?: boolean } = {}): Fake {
  const fs = new Map<string, string>();
  const runs: string[] = [];
  const reports: string[] = [];
  const asked: string[] = [];
  const d: Fake = {
    fs,
    runs,
    reports,
    asked,
    storageDir: '/storage',
    bundleDir: '/ext/server',
    platform: 'linux',
    listDir: async () => over.bundle ?? ['ascendopt-0.1.0-py3-none-any.whl', 'README'],
    readText: async (f) => fs.get(f),
    writeText: async (f, t) => {
      fs.set(f, t);
    },
    exists: async (f) => fs.has(f),
    remove: async (dir) => {
      for (const k of [...fs.keys()]) if (k.startsWith(dir)) fs.delete(k);
    },
    mkdir: async () => undefined,
    run: async (command, args, onLine) => {
      const line = `${command} ${args.join(' ')}`;
      runs.push(line);
      if (args[0] === '-m' && args[1] === 'venv') {
        fs.set(envPython(args[2]!, 'linux'), '');
      }
      if (args.includes('pip')) {
        onLine('Collecting pygls>=2.1.1');
        onLine('Downloading numpy-2.0.1-cp311-manylinux.whl (19.5 MB)');
        onLine('Successfully installed ascendopt-0.1.0 pygls-2.1.1');
      }
      return { code: over.failOn && line.includes(over.failOn) ? 1 : 0, output: '' };
    },
    basePythons: async () => ['python3', 'python'],
    consent: async (pkg) => {
      asked.push(pkg);
      return over.consentAnswer ?? true;
    },
    withProgress: (work) => work((m) => reports.push(m), new AbortController().signal),
    log: () => undefined,
    ...over,
  };
  return d;
}

const PY = '/storage/server-env/bin/python';

test('bundledPackage: the wheel, else the sdist, else none', async () => {
  assert.equal(await bundledPackage({ bundleDir: '/b', listDir: async () => ['ascendopt-0.1.0.tar.gz', 'ascendopt-0.1.0-py3-none-any.whl'] }), path.join('/b', 'ascendopt-0.1.0-py3-none-any.whl'));
  assert.equal(await bundledPackage({ bundleDir: '/b', listDir: async () => ['ascendopt-0.1.0.tar.gz'] }), path.join('/b', 'ascendopt-0.1.0.tar.gz'));
  assert.equal(await bundledPackage({ bundleDir: '/b', listDir: async () => { throw new Error('ENOENT'); } }), undefined);
});

test('first use: asks, creates the venv, installs the bundled wheel, checks the import, stamps it', async () => {
  const d = fake();
  assert.equal(await ensurePrivateEnv(d), PY);
  assert.deepEqual(d.asked, ['ascendopt-0.1.0-py3-none-any.whl']);
  assert.deepEqual(d.runs, [
    'python3 -c import sys, venv, ensurepip; sys.exit(0 if sys.version_info >= (3, 10) else 1)',
    'python3 -m venv /storage/server-env',
    `${PY} -m pip install --disable-pip-version-check /ext/server/ascendopt-0.1.0-py3-none-any.whl`,
    `${PY} -c import ascendopt.lsp`,
  ]);
  assert.deepEqual(d.reports, [
    'creating the environment',
    'installing ascendopt',
    'collecting pygls>=2.1.1',
    'downloading numpy-2.0.1-cp311-manylinux.whl',
    'installed',
    'checking the server',
  ]);
  assert.equal(d.fs.get('/storage/server-env/.ascendopt-bundle'), 'ascendopt-0.1.0-py3-none-any.whl\n');
});

test('later starts reuse the environment without asking', async () => {
  const d = fake();
  d.fs.set('/storage/server-env/.ascendopt-bundle', 'ascendopt-0.1.0-py3-none-any.whl\n');
  d.fs.set(PY, '');
  assert.equal(await ensurePrivateEnv(d), PY);
  assert.equal(d.asked.length, 0);
  assert.equal(d.runs.length, 0);
});

test('a new bundled package re-creates the environment (after asking)', async () => {
  const d = fake({ bundle: ['ascendopt-0.2.0-py3-none-any.whl'] });
  d.fs.set('/storage/server-env/.ascendopt-bundle', 'ascendopt-0.1.0-py3-none-any.whl\n');
  d.fs.set(PY, '');
  assert.equal(await ensurePrivateEnv(d), PY);
  assert.deepEqual(d.asked, ['ascendopt-0.2.0-py3-none-any.whl']);
  assert.equal(d.fs.get('/storage/server-env/.ascendopt-bundle'), 'ascendopt-0.2.0-py3-none-any.whl\n');
});

test('declined: nothing is created', async () => {
  const d = fake({ consentAnswer: false });
  assert.equal(await ensurePrivateEnv(d), undefined);
  assert.equal(d.runs.length, 0);
});

test('a failed pip install is an error and leaves no stamp', async () => {
  const d = fake({ failOn: 'pip install' });
  await assert.rejects(ensurePrivateEnv(d), (e: Error) => e instanceof SetupError && /installing ascendopt failed/.test(e.message));
  assert.equal(d.fs.get('/storage/server-env/.ascendopt-bundle'), undefined);
});

test('no usable base Python: a clear error', async () => {
  const d = fake({ failOn: 'sys.version_info' });
  await assert.rejects(ensurePrivateEnv(d), /no Python 3.10 or newer with venv found \(tried python3, python\)/);
});

test('no bundled package: a clear error', async () => {
  await assert.rejects(ensurePrivateEnv(fake({ bundle: [] })), /carries no ascendopt package/);
});

test('Windows layout', () => {
  assert.equal(envPython('C:\\s\\server-env', 'win32'), path.join('C:\\s\\server-env', 'Scripts', 'python.exe'));
});

test('pipProgress: short messages for the notification', () => {
  assert.equal(pipProgress('Collecting numpy>=1.24'), 'collecting numpy>=1.24');
  assert.equal(pipProgress('  Building wheel for msopmodeling (pyproject.toml)'), 'building msopmodeling');
  assert.equal(pipProgress('Installing collected packages: a, b'), 'installing packages');
  assert.equal(pipProgress('Requirement already satisfied: x'), undefined);
});
