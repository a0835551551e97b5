import { strict as assert } from 'node:assert';
import { beforeEach, test } from 'node:test';
import * as vscode from 'vscode';
import { type ClientFactoryArgs, type ClientLike, Controller } from '../src/controller';
import { StatusModel } from '../src/status';
import { SuggestionStore } from '../src/suggestions';
import { HOST_OLD, KERNEL_OLD, suggestion } from './fixtures';
import { mock, env as mockEnv } from './mock/vscode';

class FakeClient implements ClientLike {
  handlers = new Map<string, (p: never) => void>();
  stateListeners: ((e: { oldState: number; newState: number }) => void)[] = [];
  requests: { method: string; params: { command: string; arguments: unknown[] } }[] = [];
  started = 0;
  disposed = 0;
  failStart: Error | undefined;
  commands = ['ascendopt.optimize', 'ascendopt.verify'];
  answer: (command: string, args: unknown[]) => unknown = () => ({ status: 'started' });

  constructor(readonly args: ClientFactoryArgs) {}

  async start(): Promise<void> {
    this.started++;
    if (this.failStart) throw this.failStart;
    for (const l of this.stateListeners) l({ oldState: 3, newState: 2 });
  }
  async stop(): Promise<void> {}
  async dispose(): Promise<void> {
    this.disposed++;
  }
  async sendRequest(method: string, params: unknown): Promise<unknown> {
    const p = params as { command: string; arguments: unknown[] };
    this.requests.push({ method, params: p });
    return this.answer(p.command, p.arguments);
  }
  onNotification(method: string, handler: (p: never) => void) {
    this.handlers.set(method, handler);
    return { dispose: () => this.handlers.delete(method) };
  }
  onDidChangeState(listener: (e: { oldState: number; newState: number }) => void) {
    this.stateListeners.push(listener);
    return { dispose: () => undefined };
  }
  get initializeResult() {
    return { capabilities: { executeCommandProvider: { commands: this.commands } } };
  }
  notify(method: string, params: unknown): void {
    this.handlers.get(method)!(params as never);
  }
}

interface Harness {
  controller: Controller;
  clients: FakeClient[];
  status: StatusModel;
  secrets: Map<string, string>;
  logLines: string[];
  interpreterCalls: string[];
}

function harness(opts: { python?: string; privateEnv?: string | undefined; beforeStart?: (c: FakeClient) => void } = {}): Harness {
  const clients: FakeClient[] = [];
  const secrets = new Map<string, string>();
  const status = new StatusModel();
  const log = vscode.window.createOutputChannel('AscendOptimizer', { log: true }) as unknown as vscode.LogOutputChannel & { lines: string[] };
  const interpreterCalls: string[] = [];
  const controller = new Controller({
    context: {
      subscriptions: [],
      secrets: {
        get: async (k: string) => secrets.get(k),
        store: async (k: string, v: string) => void secrets.set(k, v),
        delete: async (k: string) => void secrets.delete(k),
        onDidChange: () => ({ dispose() {} }),
      } as unknown as vscode.SecretStorage,
    },
    log,
    status,
    store: new SuggestionStore(),
    indexWaitMs: 200,
    createClient: (args) => {
      const c = new FakeClient(args);
      opts.beforeStart?.(c);
      clients.push(c);
      return c;
    },
    interpreter: {
      pythonExtensionPath: async () => undefined,
      hasAscendopt: async (p) => {
        interpreterCalls.push(`check ${p}`);
        return p === opts.python;
      },
      privateEnv: async () => {
        interpreterCalls.push('private');
        return 'privateEnv' in opts ? opts.privateEnv : '/storage/server-env/bin/python';
      },
    },
  });
  return { controller, clients, status, secrets, logLines: log.lines, interpreterCalls };
}

beforeEach(() => {
  mock.reset();
  mock.files.set('/ws/add_custom/op_host/add_custom.cpp', HOST_OLD);
  mock.files.set('/ws/add_custom/op_kernel/add_custom.cpp', KERNEL_OLD);
  mock.workspaceFolders = [{ uri: vscode.Uri.file('/ws') as never, name: 'ws', index: 0 }];
});

test('start: the configured interpreter runs `-m ascendopt serve` with settings and the key in env', async () => {
  mock.config.set('ascendopt.server.pythonPath', '/repo/.venv/bin/python');
  mock.config.set('ascendopt.budget', 6);
  const h = harness({ python: '/repo/.venv/bin/python' });
  h.secrets.set('ascendopt.llm.apiKey', 'sk-test-1234');
  const client = await h.controller.start();
  assert.ok(client);
  const args = h.clients[0]!.args;
  assert.equal(args.python, '/repo/.venv/bin/python');
  assert.equal(args.cwd, '/ws');
  assert.equal(args.env.ASCENDOPT_LLM_API_KEY, 'sk-test-1234');
  assert.equal((args.initializationOptions.ascendopt as { budget: number }).budget, 6);
  assert.ok(!JSON.stringify(args.initializationOptions).includes('sk-test'));
  assert.equal(h.status.state, 'running');
  assert.equal(mock.context.get('ascendopt.miningAvailable'), false);
  assert.equal(h.controller.interpreter?.source, 'setting');
});

test('start: Mine experience is offered when the server registers it', async () => {
  const h = harness({ beforeStart: (c) => c.commands.push('ascendopt.mineExperience') });
  await h.controller.start();
  assert.equal(mock.context.get('ascendopt.miningAvailable'), true);
});

test('start: no interpreter (private environment declined) → failed state and a fix offered', async () => {
  const h = harness({ privateEnv: undefined });
  assert.equal(await h.controller.start(), undefined);
  assert.equal(h.status.state, 'failed');
  assert.equal(h.clients.length, 0);
  await mock.settle();
  assert.equal(mock.messages[0]!.level, 'error');
  assert.deepEqual(mock.messages[0]!.items, ['Open settings', 'Show log', 'Restart server']);
});

test('start: a server that does not start → failed state, client disposed', async () => {
  const h = harness({ beforeStart: (c) => (c.failStart = new Error('spawn python ENOENT')) });
  assert.equal(await h.controller.start(), undefined);
  assert.equal(h.status.state, 'failed');
  assert.match(h.status.stateDetail, /ENOENT/);
  assert.equal(h.clients[0]!.disposed, 1);
});

test('indexed → operators in the status; a palette command picks the only operator', async () => {
  const h = harness();
  await h.controller.start();
  const c = h.clients[0]!;
  c.notify('ascendopt/indexed', { folders: ['/ws'], operators: [{ name: 'add_custom', root: '/ws/add_custom', kernel: 'file:///ws/add_custom/op_kernel/add_custom.cpp' }] });
  assert.equal(h.status.view().text, 'AscendOpt: 1 operator');
  const result = await h.controller.runOperatorCommand('ascendopt.optimize');
  assert.deepEqual(result, { status: 'started' });
  assert.deepEqual(c.requests[0], {
    method: 'workspace/executeCommand',
    params: { command: 'ascendopt.optimize', arguments: [{ operatorRoot: '/ws/add_custom', name: 'add_custom' }] },
  });
});

test('a palette command right after start waits for the first index', async () => {
  const h = harness();
  await h.controller.start();
  const c = h.clients[0]!;
  setTimeout(() => c.notify('ascendopt/indexed', { folders: ['/ws'], operators: [{ name: 'add_custom', root: '/ws/add_custom', kernel: '' }] }), 20);
  await h.controller.runOperatorCommand('ascendopt.optimize');
  assert.deepEqual(c.requests[0]!.params.arguments, [{ operatorRoot: '/ws/add_custom', name: 'add_custom' }]);
  assert.equal(mock.messages.length, 0);
});

test('a context-menu command sends the clicked file’s URI', async () => {
  const h = harness();
  await h.controller.start();
  const file = vscode.Uri.file('/ws/add_custom/op_kernel/add_custom.cpp');
  await h.controller.runOperatorCommand('ascendopt.verify', file);
  assert.deepEqual(h.clients[0]!.requests[0]!.params.arguments, [{ uri: 'file:///ws/add_custom/op_kernel/add_custom.cpp' }]);
});

test('several operators and no operator file open → a quick pick; none indexed → a warning', async () => {
  const h = harness();
  await h.controller.start();
  const c = h.clients[0]!;
  await h.controller.runOperatorCommand('ascendopt.profile');
  assert.match(mock.messages[0]!.text, /no AscendC operator found/);
  assert.equal(c.requests.length, 0);
  c.notify('ascendopt/indexed', {
    folders: ['/ws'],
    operators: [
      { name: 'a', root: '/ws/a', kernel: '' },
      { name: 'b', root: '/ws/b', kernel: '' },
    ],
  });
  mock.quickPickAnswers.push((items) => items[1]);
  await h.controller.runOperatorCommand('ascendopt.profile');
  assert.deepEqual(c.requests[0]!.params.arguments, [{ operatorRoot: '/ws/b', name: 'b' }]);
});

test('a suggestion notification → Review → diffs; Accept from the editor title → server applies, diffs close', async () => {
  const h = harness();
  await h.controller.start();
  const c = h.clients[0]!;
  c.answer = (command) => (command === 'ascendopt.acceptSuggestion' ? { applied: true, files: ['a', 'b'] } : null);
  h.controller.registerCommands();
  mock.answers.push('Review');
  c.notify('ascendopt/suggestion', suggestion('s9'));
  await mock.settle();
  assert.equal(mock.groups[0]!.tabs.length, 1, 'both files in one multi-diff editor');
  assert.equal(mock.context.get('ascendopt.hasSuggestion'), true);
  // The editor-title action of the multi-diff editor: the suggestion is the active tab's.
  await vscode.commands.executeCommand('ascendopt.acceptSuggestionInDiff');
  assert.deepEqual(c.requests.map((r) => r.params), [{ command: 'ascendopt.acceptSuggestion', arguments: ['s9'] }]);
  assert.equal(mock.groups[0]!.tabs.length, 0);
  assert.equal(mock.context.get('ascendopt.hasSuggestion'), false);
});

test('Reject from the palette rejects the suggestion of the active diff', async () => {
  const h = harness();
  await h.controller.start();
  const c = h.clients[0]!;
  c.answer = () => ({ rejected: true });
  h.controller.registerCommands();
  mock.answers.push('Review');
  c.notify('ascendopt/suggestion', suggestion('s10'));
  await mock.settle();
  await vscode.commands.executeCommand('ascendopt.rejectSuggestionInDiff');
  assert.deepEqual(c.requests.map((r) => r.params), [{ command: 'ascendopt.rejectSuggestion', arguments: ['s10'] }]);
  assert.equal(mock.groups[0]!.tabs.length, 0);
});

test('evaluated → a message with the verdict; wrong results offer the Problems view', async () => {
  const h = harness();
  await h.controller.start();
  const c = h.clients[0]!;
  c.notify('ascendopt/evaluated', { operator: 'add_custom', operatorRoot: '/ws/add_custom', action: 'profile', status: 'ok', correct: true, verdict: 'add_custom: correct on 2 cases', cases: [] });
  c.notify('ascendopt/evaluated', { operator: 'add_custom', operatorRoot: '/ws/add_custom', action: 'verify', status: 'wrong', correct: false, verdict: 'add_custom: wrong on 1 of 2 cases', cases: [] });
  assert.equal(mock.messages[0]!.text, 'Profile: add_custom: correct on 2 cases');
  assert.equal(mock.messages[1]!.level, 'warning');
  assert.deepEqual(mock.messages[1]!.items, ['Show problems']);
  assert.equal(h.status.lastResult, 'Verify: add_custom: wrong on 1 of 2 cases');
});

test('episodeEnded → logged and shown in the status detail', async () => {
  const h = harness();
  await h.controller.start();
  h.clients[0]!.notify('ascendopt/episodeEnded', { operator: 'add_custom', operatorRoot: '/ws/add_custom', episode: 'e1', cancelled: true, message: 'cancelled after 3/6 evaluations', suggestion: null });
  assert.equal(h.status.lastResult, 'add_custom: cancelled after 3/6 evaluations');
  assert.ok(h.logLines.some((l) => /episode e1 of add_custom cancelled/.test(l)));
});

test('episodeEnded without a suggestion: the server’s headline in a toast, Show report opens the page', async () => {
  const h = harness();
  await h.controller.start();
  const c = h.clients[0]!;
  c.answer = (command, args) =>
    command === 'ascendopt.episodeReport' ? { episode: (args[0] as { episode: string }).episode, html: '<!doctype html><p>r</p>' } : null;
  mock.answers.push('Show report');
  const headline = 'no gain: no candidate beat the baseline beyond the noise band (6 tried); kernel rewriting skipped: no LLM configured';
  c.notify('ascendopt/episodeEnded', {
    operator: 'add_custom',
    operatorRoot: '/ws/add_custom',
    episode: 'e2',
    cancelled: false,
    message: headline,
    suggestion: null,
    outcome: { status: 'no_gain', title: 'no gain', headline, details: ['small: 1.49 µs (estimate)'] },
  });
  await mock.settle();
  assert.equal(h.status.lastResult, 'add_custom: no gain', 'the operator named once');
  assert.equal(mock.messages[0]!.text, `add_custom: ${headline}`);
  assert.deepEqual(mock.messages[0]!.items, ['Show report']);
  assert.deepEqual(c.requests.at(-1)!.params, { command: 'ascendopt.episodeReport', arguments: [{ episode: 'e2' }] });
  assert.equal(mock.webviews[0]!.webview.html, '<!doctype html><p>r</p>');
  assert.ok(h.logLines.some((l) => /small: 1.49 µs \(estimate\)/.test(l)), 'the details go to the log');
});

test('Set LLM API key: kept in secret storage, the server restarted with it in its env', async () => {
  const h = harness();
  await h.controller.start();
  mock.inputAnswers.push('  sk-new-key  ');
  await h.controller.setApiKey();
  assert.equal(h.secrets.get('ascendopt.llm.apiKey'), 'sk-new-key');
  assert.equal(h.clients.length, 2);
  assert.equal(h.clients[0]!.disposed, 1);
  assert.equal(h.clients[1]!.args.env.ASCENDOPT_LLM_API_KEY, 'sk-new-key');
  assert.equal(mock.configUpdates.length, 0, 'never written to settings');
  // Empty input removes it.
  mock.inputAnswers.push('');
  await h.controller.setApiKey();
  assert.equal(h.secrets.has('ascendopt.llm.apiKey'), false);
  assert.equal(h.clients[2]!.args.env.ASCENDOPT_LLM_API_KEY, undefined);
  // Escape changes nothing.
  mock.inputAnswers.push(undefined);
  await h.controller.setApiKey();
  assert.equal(h.clients.length, 3);
});

test('a new server.pythonPath restarts the server; other settings do not', async () => {
  const h = harness({ python: '/new/python' });
  await h.controller.start();
  const event = { affectsConfiguration: (s: string) => s === 'ascendopt' };
  mock.config.set('ascendopt.budget', 6);
  await h.controller.onConfigurationChanged(event as vscode.ConfigurationChangeEvent);
  assert.equal(h.clients.length, 1);
  mock.config.set('ascendopt.server.pythonPath', '/new/python');
  await h.controller.onConfigurationChanged(event as vscode.ConfigurationChangeEvent);
  assert.equal(h.clients.length, 2);
  assert.equal(h.clients[1]!.args.python, '/new/python');
});

test('Select backend writes ascendopt.backend from the SSH hosts', async () => {
  const h = harness();
  mock.config.set('ascendopt.sshHosts', ['npu-box']);
  mock.quickPickAnswers.push((items) => items[1]);
  await h.controller.selectBackend();
  assert.deepEqual(mock.configUpdates, [{ key: 'ascendopt.backend', value: 'ssh:npu-box', target: 2 }]);
});

test('Show experience bank renders the server’s lessons into a read-only document', async () => {
  const h = harness();
  await h.controller.start();
  const c = h.clients[0]!;
  c.answer = () => ({ workspace: '/ws', count: 1, lessons: [{ id: 'L1', title: 'Use double buffering' }] });
  vscode.workspace.registerTextDocumentContentProvider('ascendopt-experience', h.controller.experienceProvider());
  await h.controller.showExperience();
  assert.deepEqual(c.requests[0]!.params, { command: 'ascendopt.showExperience', arguments: [{}] });
  assert.match(mock.opened[0]!.text, /## Use double buffering/);
  assert.equal(mock.opened[0]!.uri, 'ascendopt-experience:/experience-bank.md');
});

test('registerCommands registers every palette command once, none clashing with the server’s', () => {
  const h = harness();
  h.controller.registerCommands();
  const ids = [...mock.commands.keys()];
  assert.equal(ids.length, 19);
  for (const server of ['ascendopt.optimize', 'ascendopt.tuneTiling', 'ascendopt.verify', 'ascendopt.profile', 'ascendopt.acceptSuggestion', 'ascendopt.rejectSuggestion', 'ascendopt.showExperience', 'ascendopt.mineExperience', 'ascendopt.episodeReport', 'ascendopt.initSpec', 'ascendopt.resumeEpisode', 'ascendopt.runCampaign']) {
    assert.ok(!ids.includes(server), `${server} is left to vscode-languageclient`);
  }
});

test('Write a starting spec: the server writes and opens it; an existing spec is overwritten only on Overwrite', async () => {
  const h = harness();
  await h.controller.start();
  const c = h.clients[0]!;
  c.notify('ascendopt/indexed', { folders: ['/ws'], operators: [{ name: 'add_custom', root: '/ws/add_custom', kernel: '' }] });
  const which = { operatorRoot: '/ws/add_custom', name: 'add_custom', path: '/ws/add_custom/ascendopt.toml' };
  c.answer = (_command, args) => ((args as unknown[])[1] ? { status: 'ok', ...which } : { status: 'exists', ...which, message: '/ws/add_custom/ascendopt.toml exists' });
  mock.answers.push(undefined); // dismissed: nothing overwritten
  await h.controller.initSpec();
  assert.equal(c.requests.length, 1);
  assert.match(mock.messages[0]!.text, /ascendopt\.toml exists/);
  mock.answers.push('Overwrite');
  await h.controller.initSpec();
  assert.deepEqual(c.requests.at(-1)!.params, { command: 'ascendopt.initSpec', arguments: [{ operatorRoot: '/ws/add_custom', name: 'add_custom' }, { force: true }] });
  assert.equal(c.requests.length, 3);
});

test('campaigns and interrupted episodes: run over the workspace, open the report at the end, resume from the sidebar', async () => {
  const h = harness();
  await h.controller.start();
  const c = h.clients[0]!;
  c.answer = (command) => (command === 'ascendopt.runCampaign' ? { status: 'started', campaign: 'c1' } : { status: 'started' });
  await h.controller.runCampaign();
  assert.deepEqual(c.requests.at(-1)!.params, { command: 'ascendopt.runCampaign', arguments: [{}] });
  mock.answers.push('Open report');
  await h.controller.onCampaignEnded({ campaign: 'c1', report: '/ws/.ascendopt/campaigns/c1/report.html', summary: ['ours: 1/1 correct'] });
  assert.match(mock.messages.at(-1)!.text, /campaign c1: ours: 1\/1 correct/);
  assert.deepEqual(mockEnv.opened, ['file:///ws/.ascendopt/campaigns/c1/report.html']);
  await h.controller.resumeEpisode({ kind: 'episode', episode: { id: 'e7' } });
  assert.deepEqual(c.requests.at(-1)!.params, { command: 'ascendopt.resumeEpisode', arguments: [{ episode: 'e7' }] });
});
