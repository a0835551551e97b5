import { strict as assert } from 'node:assert';
import { beforeEach, test } from 'node:test';
import * as vscode from 'vscode';
import {
  closeDiffs,
  diffTitle,
  notificationText,
  parseSuggestionUri,
  proposedUri,
  reviewTitle,
  SuggestionContentProvider,
  SuggestionReview,
  SuggestionStore,
} from '../src/suggestions';
import { HOST_OLD, KERNEL_NEW, KERNEL_OLD, suggestion } from './fixtures';
import { mock, TabInputTextDiff } from './mock/vscode';

const log = { lines: [] as string[], info(m: string) { this.lines.push(m); }, warn(m: string) { this.lines.push(m); }, error(m: string) { this.lines.push(m); } };

interface Sent { command: string; args: unknown[] }

function setup(answer: (s: Sent) => unknown = () => ({ applied: true, files: [] })) {
  const sent: Sent[] = [];
  const store = new SuggestionStore();
  const review = new SuggestionReview(store, async (command, args) => {
    const s = { command, args };
    sent.push(s);
    return answer(s);
  }, log);
  return { sent, store, review };
}

beforeEach(() => {
  mock.reset();
  mock.files.set('/ws/add_custom/op_host/add_custom.cpp', HOST_OLD);
  mock.files.set('/ws/add_custom/op_kernel/add_custom.cpp', KERNEL_OLD);
});

test('texts: the notification names speedup, estimate and both files; diff titles name operator and speedup', () => {
  const s = suggestion();
  assert.equal(
    notificationText(s),
    'add_custom: 1.42× faster (geomean of 2 cases) (estimate) — op_host/add_custom.cpp + op_kernel/add_custom.cpp. Review the paired diff?',
  );
  assert.equal(diffTitle(s, s.files[1]!), 'add_custom 1.42× (estimate): op_kernel/add_custom.cpp (current ↔ proposed)');
  assert.equal(reviewTitle(s), 'add_custom 1.42× (estimate): op_host/add_custom.cpp + op_kernel/add_custom.cpp (current ↔ proposed)');
  const measured = { ...s, speedups: s.speedups.map((sp) => ({ ...sp, kind: 'measured' })) };
  assert.ok(!notificationText(measured).includes('(estimate)'));
});

test('proposed URIs round-trip and keep the file extension', () => {
  const uri = proposedUri('ab/c d', 'op_kernel/add_custom.cpp');
  assert.equal(uri.scheme, 'ascendopt-proposed');
  assert.ok(uri.path.endsWith('.cpp'));
  assert.deepEqual(parseSuggestionUri(uri), { id: 'ab/c d', path: 'op_kernel/add_custom.cpp' });
  assert.equal(parseSuggestionUri(vscode.Uri.file('/ws/x.cpp')), undefined);
});

test('the content provider serves the proposal read-only, and says when it is gone', () => {
  const store = new SuggestionStore();
  store.add(suggestion());
  const provider = new SuggestionContentProvider(store);
  assert.equal(provider.provideTextDocumentContent(proposedUri('s1', 'op_kernel/add_custom.cpp')), KERNEL_NEW);
  assert.equal(
    provider.provideTextDocumentContent(vscode.Uri.from({ scheme: 'ascendopt-base', path: '/s1/op_host/add_custom.cpp' })),
    HOST_OLD,
  );
  store.remove('s1');
  assert.match(provider.provideTextDocumentContent(proposedUri('s1', 'op_kernel/add_custom.cpp')), /no longer available/);
});

test('store: hasSuggestion context follows the pending suggestions', () => {
  const store = new SuggestionStore();
  store.add(suggestion('a'));
  assert.equal(mock.context.get('ascendopt.hasSuggestion'), true);
  store.add(suggestion('b'));
  assert.equal(store.latest()?.id, 'b');
  store.remove('a');
  store.remove('b');
  assert.equal(mock.context.get('ascendopt.hasSuggestion'), false);
});

test('Review opens both files in one multi-diff editor: the file on disk vs the proposal, titled', async () => {
  const { review } = setup();
  mock.answers.push('Review');
  await review.offer(suggestion());
  assert.deepEqual(mock.messages[0]!.items, ['Review', 'Accept', 'Reject']);
  const changes = mock.executed.filter((e) => e.command === 'vscode.changes');
  assert.equal(changes.length, 1);
  assert.equal(mock.executed.filter((e) => e.command === 'vscode.diff').length, 0);
  const [title, resources] = changes[0]!.args as [string, [vscode.Uri, vscode.Uri, vscode.Uri][]];
  assert.equal(title, 'add_custom 1.42× (estimate): op_host/add_custom.cpp + op_kernel/add_custom.cpp (current ↔ proposed)');
  assert.equal(resources.length, 2);
  const [label, left, right] = resources[1]!;
  assert.equal(label.fsPath, '/ws/add_custom/op_kernel/add_custom.cpp');
  assert.equal(left.scheme, 'file');
  assert.equal(right.toString(), proposedUri('s1', 'op_kernel/add_custom.cpp', label).toString());
  assert.equal(right.path, label.path, 'the same path as the file: a change, not a rename');
  assert.deepEqual(parseSuggestionUri(right), { id: 's1', path: 'op_kernel/add_custom.cpp' });
  assert.equal(mock.messages.length, 1, 'no warning when the disk matches the episode base');
});

test('Accept from the multi-diff editor title acts on its suggestion and closes it', async () => {
  const { review, store, sent } = setup(() => ({ applied: true, files: [] }));
  store.add(suggestion('other'));
  store.add(suggestion('s1'));
  await review.review('s1');
  store.add(suggestion('newest'));
  assert.equal(review.idFrom(undefined), 's1'); // the active tab is s1's multi-diff editor
  assert.equal(await review.accept(review.idFrom(undefined)), true);
  assert.deepEqual(sent.at(-1), { command: 'ascendopt.acceptSuggestion', args: ['s1'] });
  assert.equal(mock.groups[0]!.tabs.length, 0);
});

test('Review when the disk moved on: the left side is the episode base, with a warning', async () => {
  const { review, store } = setup();
  store.add(suggestion());
  mock.files.set('/ws/add_custom/op_kernel/add_custom.cpp', KERNEL_OLD + '// edited\n');
  await review.review('s1');
  const [, resources] = mock.executed.find((e) => e.command === 'vscode.changes')!.args as [string, vscode.Uri[][]];
  assert.equal(resources[0]![1]!.scheme, 'file');
  assert.equal(resources[1]![1]!.scheme, 'ascendopt-base');
  assert.match(mock.messages[0]!.text, /changed on disk since the episode started/);
});

test('Accept asks the server to apply both files, then closes the diffs', async () => {
  const { review, store, sent } = setup(() => ({ applied: true, files: ['/ws/add_custom/op_host/add_custom.cpp', '/ws/add_custom/op_kernel/add_custom.cpp'] }));
  store.add(suggestion());
  await review.review('s1');
  mock.openDiff(vscode.Uri.file('/other.cpp') as never, vscode.Uri.file('/other2.cpp') as never, 'unrelated');
  assert.equal(mock.groups[0]!.tabs.length, 2);
  assert.equal(await review.accept('s1'), true);
  assert.deepEqual(sent, [{ command: 'ascendopt.acceptSuggestion', args: ['s1'] }]);
  assert.equal(mock.groups[0]!.tabs.length, 1, 'only the unrelated tab stays');
  assert.equal(store.get('s1'), undefined);
});

test('Accept before the diff was opened asks to open it first, and applies nothing', async () => {
  const { review, sent, store } = setup();
  mock.answers.push('Accept', 'Review the diff');
  await review.offer(suggestion());
  assert.equal(sent.length, 0, 'nothing is sent before the user has seen the diff');
  assert.match(mock.messages[1]!.text, /open the paired diff before accepting it/);
  assert.equal(mock.executed.filter((e) => e.command === 'vscode.changes').length, 1, 'the review opens on request');
  assert.ok(store.get('s1'));
  assert.equal(await review.accept('s1'), true, 'once reviewed, Accept applies');
  assert.deepEqual(sent.map((s) => s.command), ['ascendopt.acceptSuggestion']);
});

test('with the outcome record: the toast and diff titles show the server’s words, slower cases included', () => {
  const s = {
    ...suggestion(),
    title: 'add_custom: 1.01× faster (geomean of 4 cases, estimate); slower on llama 0.98×',
    outcome: {
      status: 'suggestion' as const,
      title: '1.01× faster, slower on 1 of 4 cases (estimate)',
      headline: '1.01× faster (geomean of 4 cases, estimate); slower on llama 0.98×',
      details: [],
    },
  };
  assert.equal(
    notificationText(s),
    'add_custom: 1.01× faster (geomean of 4 cases, estimate); slower on llama 0.98× — op_host/add_custom.cpp + op_kernel/add_custom.cpp. Review the paired diff?',
  );
  assert.equal(diffTitle(s, s.files[0]!), 'add_custom 1.01× faster, slower on 1 of 4 cases (estimate): op_host/add_custom.cpp (current ↔ proposed)');
  assert.ok(reviewTitle(s).startsWith('add_custom 1.01× faster, slower on 1 of 4 cases (estimate): '));
});

test('Reject tells the server, changes nothing, closes the diffs', async () => {
  const { review, store, sent } = setup(() => ({ rejected: true }));
  store.add(suggestion());
  await review.review('s1');
  assert.equal(await review.reject('s1'), true);
  assert.deepEqual(sent, [{ command: 'ascendopt.rejectSuggestion', args: ['s1'] }]);
  assert.equal(mock.groups[0]!.tabs.length, 0);
  assert.match(mock.messages.at(-1)!.text, /rejected; no file was changed/);
  assert.equal(mock.files.get('/ws/add_custom/op_kernel/add_custom.cpp'), KERNEL_OLD);
});

test('A stale suggestion: the server says so; the client drops it and closes the diffs', async () => {
  const { review, store } = setup(() => ({ applied: false, stale: ['op_kernel/add_custom.cpp'], message: 'stale' }));
  store.add(suggestion());
  await review.review('s1');
  assert.equal(await review.accept('s1'), false);
  assert.equal(store.get('s1'), undefined);
  assert.equal(mock.groups[0]!.tabs.length, 0);
  assert.ok(log.lines.some((l) => /stale: op_kernel\/add_custom.cpp/.test(l)));
});

test('A failed write keeps the suggestion (nothing changed; the user may retry)', async () => {
  const { review, store } = setup(() => ({ applied: false, message: 'add_custom: could not write the suggestion (disk full); no file was changed' }));
  store.add(suggestion());
  await review.review('s1');
  assert.equal(await review.accept('s1'), false);
  assert.ok(store.get('s1'));
});

test('Accept of an unknown or decided suggestion warns without calling the server', async () => {
  const { review, sent } = setup();
  assert.equal(await review.accept('nope'), false);
  assert.equal(sent.length, 0);
  assert.match(mock.messages[0]!.text, /no pending suggestion/);
});

test('idFrom: the clicked proposed resource, else the active diff tab, else the latest', () => {
  const { review, store } = setup();
  store.add(suggestion('old'));
  store.add(suggestion('new'));
  assert.equal(review.idFrom(proposedUri('old', 'op_host/add_custom.cpp')), 'old');
  mock.openDiff(vscode.Uri.file('/ws/a.cpp') as never, proposedUri('old', 'op_kernel/add_custom.cpp') as never, 't');
  assert.equal(review.idFrom(undefined), 'old');
  mock.groups[0]!.activeTab = undefined;
  assert.equal(review.idFrom(undefined), 'new');
});

test('closeDiffs closes only that suggestion’s tabs, in every group', async () => {
  mock.groups.push({ tabs: [], activeTab: undefined });
  const g2 = mock.groups[1]!;
  g2.tabs.push({ label: 'x', input: new TabInputTextDiff(vscode.Uri.file('/a') as never, proposedUri('s1', 'a.cpp') as never), group: g2 });
  mock.openDiff(vscode.Uri.file('/b') as never, proposedUri('s2', 'b.cpp') as never, 'y');
  await closeDiffs('s1');
  assert.equal(g2.tabs.length, 0);
  assert.equal(mock.groups[0]!.tabs.length, 1);
});
