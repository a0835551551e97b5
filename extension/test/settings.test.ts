import { strict as assert } from 'node:assert';
import { test } from 'node:test';
import { backendChoices, cannPathFrom, initializationOptions, needsRestart, readSettings, serverEnv, DEFAULTS } from '../src/settings';

function config(values: Record<string, unknown>) {
  return { get: <T>(key: string) => values[key] as T | undefined };
}

test('readSettings: defaults when nothing is set', () => {
  assert.deepEqual(readSettings(config({})), DEFAULTS);
});

test('readSettings: reads every ascendopt.* key and ignores bad values', () => {
  const s = readSettings(
    config({
      'server.pythonPath': ' /opt/py/bin/python ',
      backend: 'ssh:npu-box',
      sshHosts: ['npu-box', '', 3, 'npu2'],
      soc: 'Ascend910B4',
      budget: 6,
      'llm.baseUrl': 'http://127.0.0.1:9000/v1',
      'llm.model': 'deepseek-chat',
    }),
  );
  assert.equal(s.pythonPath, '/opt/py/bin/python');
  assert.equal(s.backend, 'ssh:npu-box');
  assert.deepEqual(s.sshHosts, ['npu-box', 'npu2']);
  assert.equal(s.soc, 'Ascend910B4');
  assert.equal(s.budget, 6);
  assert.deepEqual(s.llm, { baseUrl: 'http://127.0.0.1:9000/v1', model: 'deepseek-chat' });
  assert.equal(readSettings(config({ budget: 0 })).budget, 40);
  assert.equal(readSettings(config({ budget: 2.5 })).budget, 40);
  assert.equal(readSettings(config({ soc: '' })).soc, null);
  assert.equal(readSettings(config({ backend: '' })).backend, 'cpu-twin');
});

test('initializationOptions: the shape the server reads, and never a key', () => {
  const s = { ...DEFAULTS, budget: 6, soc: 'Ascend910B4', llm: { baseUrl: 'http://x/v1', model: 'm' } };
  const opts = initializationOptions(s);
  assert.deepEqual(JSON.parse(JSON.stringify(opts)), {
    ascendopt: { backend: 'cpu-twin', budget: 6, sshHosts: [], soc: 'Ascend910B4', llm: { baseUrl: 'http://x/v1', model: 'm' } },
  });
  assert.ok(!JSON.stringify(opts).toLowerCase().includes('key'));
  // No soc: the spec's SoC applies (the key is left out rather than sent as null).
  assert.ok(!('soc' in (initializationOptions(DEFAULTS).ascendopt as object)));
});

test('serverEnv: the key goes to ASCENDOPT_LLM_API_KEY only when set', () => {
  const base = { PATH: '/usr/bin' };
  const without = serverEnv(base, undefined);
  assert.equal(without.ASCENDOPT_LLM_API_KEY, undefined);
  assert.equal(without.PATH, '/usr/bin');
  assert.equal(without.PYTHONUNBUFFERED, '1');
  assert.equal(serverEnv(base, 'sk-secret').ASCENDOPT_LLM_API_KEY, 'sk-secret');
  assert.equal((base as Record<string, string>).ASCENDOPT_LLM_API_KEY, undefined, 'the base env is not modified');
});

test('needsRestart: only a new interpreter needs a new process', () => {
  assert.equal(needsRestart(DEFAULTS, { ...DEFAULTS, budget: 6 }), false);
  assert.equal(needsRestart(DEFAULTS, { ...DEFAULTS, backend: 'ssh:x' }), false);
  assert.equal(needsRestart(DEFAULTS, { ...DEFAULTS, pythonPath: '/x/python' }), true);
});

test('backendChoices: cpu-twin first, then one per SSH host', () => {
  const labels = backendChoices({ ...DEFAULTS, sshHosts: ['a', 'b'] }).map((c) => c.label);
  assert.deepEqual(labels, ['cpu-twin', 'ssh:a', 'ssh:b']);
});

test('Huawei Ascend C Toolkits: its configured CANN folder becomes ASCEND_TOOLKIT_HOME unless one is set', () => {
  const manifest = {
    contributes: {
      configuration: [
        { properties: { 'ascendc.theme': {}, 'ascendc.cannPath': {} } },
        { properties: { 'ascendc.toolkit.installDir': {} } },
      ],
    },
  };
  const values: Record<string, unknown> = { 'ascendc.cannPath': '', 'ascendc.toolkit.installDir': ' /opt/Ascend/cann ' };
  const cann = cannPathFrom(manifest, (key) => values[key]);
  assert.equal(cann, '/opt/Ascend/cann'); // the empty one is skipped
  assert.equal(cannPathFrom(undefined, () => '/x'), undefined);
  assert.equal(cannPathFrom({ contributes: {} }, () => '/x'), undefined);
  assert.equal(serverEnv({ PATH: '/bin' }, undefined, cann).ASCEND_TOOLKIT_HOME, '/opt/Ascend/cann');
  // CANN's own set_env.sh already exported one: it stands
  assert.equal(serverEnv({ ASCEND_TOOLKIT_HOME: '/usr/local/Ascend/latest' }, undefined, cann).ASCEND_TOOLKIT_HOME, '/usr/local/Ascend/latest');
});
