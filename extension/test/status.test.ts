import { strict as assert } from 'node:assert';
import { test } from 'node:test';
import { ProgressNotifications } from '../src/progress';
import { StatusModel } from '../src/status';
import { bindBackendStatus, bindStatusItem, bindSuggestionStatus } from '../src/statusItem';
import { SuggestionStore } from '../src/suggestions';
import { suggestion } from './fixtures';
import { mock } from './mock/vscode';

test('status: server states', () => {
  const s = new StatusModel();
  assert.equal(s.view().text, 'AscendOpt: stopped');
  s.setState('setup', 'creating the environment');
  assert.deepEqual([s.view().text, s.view().busy], ['AscendOpt: setting up', true]);
  s.setState('failed', 'no python');
  assert.deepEqual([s.view().severity, s.view().detail], ['error', 'no python']);
  s.setState('running');
  s.setOperators(1);
  assert.equal(s.view().text, 'AscendOpt: 1 operator');
  s.setOperators(3);
  assert.equal(s.view().text, 'AscendOpt: 3 operators');
});

test('progress: begin/report/end drive a cancellable notification and the status', async () => {
  mock.reset();
  const s = new StatusModel();
  s.setState('running');
  const cancelled: unknown[] = [];
  const p = new ProgressNotifications(s, (t) => cancelled.push(t));
  p.handle('t1', { kind: 'begin', title: 'Optimize add_custom', message: 'starting (cpu-twin, budget 6)', percentage: 0, cancellable: true });
  await mock.settle();
  assert.equal(mock.progress.length, 1);
  assert.deepEqual(mock.progress[0]!.options, { location: 15, title: 'Optimize add_custom', cancellable: true });
  assert.equal(s.view().text, 'Optimize add_custom: starting (cpu-twin, budget 6)');
  assert.equal(s.view().busy, true);
  p.handle('t1', { kind: 'report', message: '3/6 evaluations · best 1.20× · tiling search', percentage: 50 });
  p.handle('t1', { kind: 'report', message: '4/6 evaluations', percentage: 40 }); // never backwards
  assert.deepEqual(mock.progress[0]!.reports, [
    { message: 'starting (cpu-twin, budget 6)', increment: 0 },
    { message: '3/6 evaluations · best 1.20× · tiling search', increment: 50 },
    { message: '4/6 evaluations', increment: 0 },
  ]);
  assert.equal(s.jobs()[0]!.percentage, 40);
  assert.match(s.view().text, /4\/6 evaluations/);
  // Cancel in the notification → window/workDoneProgress/cancel for that token.
  mock.progress[0]!.cancel();
  assert.deepEqual(cancelled, ['t1']);
  p.handle('t1', { kind: 'end', message: 'cancelled after 4/6 evaluations' });
  await mock.settle();
  assert.equal(mock.progress[0]!.done, true);
  assert.equal(s.jobs().length, 0);
  assert.equal(s.view().detail, 'Optimize add_custom: cancelled after 4/6 evaluations');
});

test('progress: two jobs at once; the status names the first and counts the rest', async () => {
  mock.reset();
  const s = new StatusModel();
  s.setState('running');
  const p = new ProgressNotifications(s, () => undefined);
  p.handle(1, { kind: 'begin', title: 'Optimize add_custom' });
  p.handle(2, { kind: 'begin', title: 'Verify mul_custom', cancellable: false });
  await mock.settle();
  assert.match(s.view().text, /^Optimize add_custom.*\(\+1\)$/);
  assert.match(s.view().detail, /Verify mul_custom/);
  assert.equal(mock.progress[1]!.options.cancellable, false);
  p.clear();
  await mock.settle();
  assert.ok(mock.progress.every((e) => e.done));
  assert.equal(s.jobs().length, 0);
});

test('progress: an end that overtakes the notification still closes it; junk is ignored', async () => {
  mock.reset();
  const s = new StatusModel();
  s.setState('running');
  const p = new ProgressNotifications(s, () => undefined);
  p.handle('a', { kind: 'begin', title: 'Profile add_custom' });
  p.handle('a', { kind: 'end' });
  await mock.settle();
  assert.equal(mock.progress[0]!.done, true);
  p.handle('b', 'nonsense');
  p.handle('c', { kind: 'report', message: 'unknown token' });
  p.handle('d', { kind: 'end' });
  assert.equal(s.jobs().length, 0);
});

test('status: a stopped server has no running jobs', () => {
  const s = new StatusModel();
  s.setState('running');
  s.begin('t', 'Optimize add_custom');
  s.setState('stopped');
  assert.equal(s.jobs().length, 0);
});

test('status item: follows the model', () => {
  mock.reset();
  const s = new StatusModel();
  bindStatusItem(s);
  const item = mock.statusItems[0]!;
  assert.equal(item.text, 'AscendOpt: stopped');
  assert.equal(item.severity, 1);
  s.setState('running');
  s.begin('t', 'Optimize add_custom', '1/6 evaluations');
  assert.equal(item.text, 'Optimize add_custom: 1/6 evaluations');
  assert.equal(item.busy, true);
  assert.deepEqual(item.command, { title: 'Log', command: 'ascendopt.showOutput' });
  s.setState('failed', 'boom');
  assert.deepEqual(item.command, { title: 'Restart', command: 'ascendopt.restartServer' });
});

test('suggestion status-bar entry: shown while a suggestion waits, opens Review', () => {
  mock.reset();
  const store = new SuggestionStore();
  bindSuggestionStatus(store);
  const item = mock.statusBarItems[0]!;
  assert.equal(item.visible, false);
  store.add(suggestion('s1'));
  assert.equal(item.visible, true);
  assert.equal(item.text, '$(git-compare) add_custom 1.42× — Review');
  assert.deepEqual(item.command, { title: 'Review', command: 'ascendopt.reviewSuggestion', arguments: ['s1'] });
  store.remove('s1');
  assert.equal(item.visible, false);
});

test('status bar: the backend when idle, the running episode with its progress, a click opens the log', () => {
  mock.reset();
  const s = new StatusModel();
  bindBackendStatus(s);
  const item = mock.statusBarItems.find((i) => i.id === 'ascendopt.backend')!;
  assert.equal(item.visible, true);
  assert.deepEqual(item.command, { title: 'Show log', command: 'ascendopt.showOutput' });
  s.setState('running');
  s.setBackend('ssh:npu-box');
  assert.equal(item.text, '$(zap) ssh:npu-box');
  s.begin('t1', 'Optimize add_custom', '3/6 evaluations · best 1.20× · tiling search', 50);
  assert.equal(item.text, '$(sync~spin) add_custom 50% · 3/6 evaluations · best 1.20×');
  assert.match(String(item.tooltip), /on ssh:npu-box/);
  s.begin('t2', 'Optimize gelu_custom');
  assert.match(String(item.text), /\(\+1\)$/);
  s.end('t1');
  s.end('t2');
  assert.equal(item.text, '$(zap) ssh:npu-box');
  s.setState('failed', 'no python');
  assert.equal(item.text, '$(error) ssh:npu-box');
});
