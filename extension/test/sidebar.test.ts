import { strict as assert } from 'node:assert';
import { test } from 'node:test';
import type { WorkspaceState } from '../src/protocol';
import { Sidebar, episodeOutcome, lessonUri } from '../src/sidebar';
import { SuggestionReview, SuggestionStore } from '../src/suggestions';
import { suggestion } from './fixtures';
import { mock, Uri } from './mock/vscode';

const STATE: WorkspaceState = {
  folders: ['/ws'],
  operators: [
    { name: 'add_custom', root: '/ws/add_custom', kernel: 'file:///ws/add_custom/op_kernel/add_custom.cpp', spec: 'ok', specProblem: null, lastVerify: 'add_custom: 3/3 case(s) correct', lastProfile: '12.3 µs est. 910B4', running: false },
    { name: 'gelu_custom', root: '/ws/gelu_custom', kernel: 'file:///ws/gelu_custom/op_kernel/gelu_custom.cpp', spec: 'missing', specProblem: 'no ascendopt.toml', lastVerify: null, lastProfile: null, running: true },
  ],
  episodes: [
    { id: '20261201-120000-add_custom-aaaaaa', operator: 'add_custom', ended: true, cancelled: false, message: 'add_custom: 1.12x faster', bestSpeedup: 1.12, evaluations: 24 },
    { id: '20261201-110000-add_custom-bbbbbb', operator: 'add_custom', ended: true, cancelled: true, message: 'cancelled', bestSpeedup: null, evaluations: 6 },
    { id: '20261201-100000-add_custom-cccccc', operator: 'add_custom', ended: false, cancelled: false, message: '', bestSpeedup: null, evaluations: 0 },
  ],
  suggestions: [{ id: 's1', operator: 'add_custom', operatorRoot: '/ws/add_custom', episode: 'e1', geomean: 1.12, timing: 'estimate', summary: 'bigger tiles' }],
  lessons: [{ id: 'l1', title: 'Double-buffer the copy-in', family: 'kernel.pipeline', markdown: '# Double-buffer the copy-in\n' }],
  message: null,
};

test('sidebar: groups with counts, operator state, episode outcomes, lessons as Markdown previews', async () => {
  mock.reset();
  let asked = 0;
  const sidebar = new Sidebar(async () => {
    asked++;
    return STATE;
  });
  let fired = 0;
  sidebar.onDidChangeTreeData(() => fired++);
  await sidebar.refresh();
  assert.equal(asked, 1);
  assert.equal(fired, 1);
  const groups = sidebar.getChildren();
  assert.deepEqual(
    groups.map((g) => sidebar.getTreeItem(g).label),
    ['Operators (2)', 'Pending suggestions (1)', 'Episodes (3)', 'Experience bank (1)'],
  );
  const [ops, sugg, eps, lessons] = groups.map((g) => sidebar.getChildren(g).map((n) => sidebar.getTreeItem(n)));
  assert.equal(ops![0]!.description, '3/3 case(s) correct · 12.3 µs est. 910B4');
  assert.match(String(ops![1]!.description), /optimizing… · spec missing/);
  assert.equal(ops![0]!.command?.command, 'vscode.open');
  assert.deepEqual(
    eps!.map((e) => e.description),
    ['1.12× · 24 evaluations', 'cancelled after 6 evaluations', 'running or interrupted'],
  );
  assert.equal(sugg![0]!.contextValue, 'suggestion');
  assert.equal(sugg![0]!.description, '1.12× (geomean, estimate) — review before accepting');
  assert.deepEqual(sugg![0]!.command?.arguments, ['s1']);
  assert.equal(lessons![0]!.command?.command, 'markdown.showPreview');
  const uri = lessons![0]!.command!.arguments![0] as Uri;
  assert.equal(uri.toString(), lessonUri('l1').toString());
  assert.equal(sidebar.lessonMarkdown(uri), '# Double-buffer the copy-in\n');
  assert.equal(sidebar.lessonMarkdown(Uri.from({ scheme: 'ascendopt-experience', path: '/experience-bank.md' })), undefined);
});

test('sidebar: no pending suggestion hides the group; no server shows nothing', async () => {
  const sidebar = new Sidebar(async () => ({ ...STATE, suggestions: [] }));
  await sidebar.refresh();
  assert.equal(sidebar.getChildren().length, 3);
  const down = new Sidebar(async () => {
    throw new Error('not running');
  });
  await down.refresh();
  assert.deepEqual(
    down.getChildren().map((g) => down.getTreeItem(g).label),
    ['Operators (0)', 'Episodes (0)', 'Experience bank (0)'],
  );
  assert.equal(episodeOutcome({ ...STATE.episodes[0]!, bestSpeedup: null }), 'no gain · 24 evaluations');
});

test('sidebar: Accept/Reject from a suggestion item act on that suggestion', async () => {
  mock.reset();
  const store = new SuggestionStore();
  const s = suggestion();
  store.add(s);
  const sent: unknown[][] = [];
  const review = new SuggestionReview(store, async (command, args) => {
    sent.push([command, ...args]);
    return { rejected: true };
  }, { info: () => undefined, warn: () => undefined, error: () => undefined });
  const node = { kind: 'suggestion', suggestion: STATE.suggestions[0]!, suggestionId: s.id };
  assert.equal(review.idFrom(node), s.id);
  assert.equal(review.idFrom(s.id), s.id);
  assert.equal(await review.reject(review.idFrom(node)), true);
  assert.deepEqual(sent, [['ascendopt.rejectSuggestion', s.id]]);
});
