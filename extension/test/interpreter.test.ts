import { strict as assert } from 'node:assert';
import { test } from 'node:test';
import { InterpreterError, resolveInterpreter, selectedInterpreter, type InterpreterDeps } from '../src/interpreter';

function deps(over: Partial<InterpreterDeps> & { good?: string[] }): InterpreterDeps & { calls: string[] } {
  const calls: string[] = [];
  const good = new Set(over.good ?? []);
  return {
    calls,
    settingPath: over.settingPath ?? (() => ''),
    pythonExtensionPath: over.pythonExtensionPath ?? (async () => undefined),
    hasAscendopt: async (p) => {
      calls.push(`check ${p}`);
      return good.has(p);
    },
    privateEnv:
      over.privateEnv ??
      (async () => {
        calls.push('private');
        return '/storage/server-env/bin/python';
      }),
    log: () => undefined,
  };
}

test('the setting comes first and is used as given', async () => {
  const d = deps({ settingPath: () => '/repo/.venv/bin/python', pythonExtensionPath: async () => '/other/python', good: ['/repo/.venv/bin/python', '/other/python'] });
  assert.deepEqual(await resolveInterpreter(d), { python: '/repo/.venv/bin/python', source: 'setting' });
  assert.deepEqual(d.calls, ['check /repo/.venv/bin/python']);
});

test('a setting that cannot import ascendopt is an error, not a silent fallback', async () => {
  const d = deps({ settingPath: () => '/bad/python' });
  await assert.rejects(resolveInterpreter(d), (err: Error) => err instanceof InterpreterError && /cannot import ascendopt/.test(err.message));
  assert.ok(!d.calls.includes('private'));
});

test('then the Python extension’s interpreter, when it has ascendopt', async () => {
  const d = deps({ pythonExtensionPath: async () => '/conda/bin/python', good: ['/conda/bin/python'] });
  assert.deepEqual(await resolveInterpreter(d), { python: '/conda/bin/python', source: 'python-extension' });
});

test('a Python-extension interpreter without ascendopt falls back to the private environment', async () => {
  const d = deps({ pythonExtensionPath: async () => '/usr/bin/python3' });
  assert.deepEqual(await resolveInterpreter(d), { python: '/storage/server-env/bin/python', source: 'private-env' });
  assert.deepEqual(d.calls, ['check /usr/bin/python3', 'private']);
});

test('a failing Python extension does not stop the fallback', async () => {
  const d = deps({ pythonExtensionPath: async () => { throw new Error('not activated'); } });
  assert.equal((await resolveInterpreter(d)).source, 'private-env');
});

test('declining the private environment is an error that says what to do', async () => {
  const d = deps({ privateEnv: async () => undefined });
  await assert.rejects(resolveInterpreter(d), /set ascendopt.server.pythonPath/);
});

test('selectedInterpreter: the environments API, then the legacy execution details', async () => {
  assert.equal(await selectedInterpreter(undefined), undefined);
  const modern = {
    environments: {
      getActiveEnvironmentPath: () => ({ path: '/envs/a' }),
      resolveEnvironment: async () => ({ executable: { uri: { fsPath: '/envs/a/bin/python' } } }),
    },
  };
  assert.equal(await selectedInterpreter(modern), '/envs/a/bin/python');
  const legacy = { settings: { getExecutionDetails: () => ({ execCommand: ['/usr/bin/python3'] }) } };
  assert.equal(await selectedInterpreter(legacy), '/usr/bin/python3');
  const conda = { settings: { getExecutionDetails: () => ({ execCommand: ['conda', 'run', '-n', 'x', 'python'] }) } };
  assert.equal(await selectedInterpreter(conda), undefined);
});

test('a pythonPath without ascendopt gets an install hint that resolves: the bundled wheel', async () => {
  const { installHint } = await import('../src/interpreter');
  await assert.rejects(
    resolveInterpreter({
      settingPath: () => '/opt/py/bin/python',
      pythonExtensionPath: async () => undefined,
      hasAscendopt: async () => false,
      privateEnv: async () => undefined,
      bundledWheel: async () => '/ext/server/ascendopt-0.1.0-py3-none-any.whl',
      log: () => undefined,
    }),
    (err: Error) => err.message.includes('"/opt/py/bin/python" -m pip install "/ext/server/ascendopt-0.1.0-py3-none-any.whl"') && !/pip install ascendopt\b/.test(err.message),
  );
  assert.match(installHint('python3', undefined), /pip install -e/);
});
