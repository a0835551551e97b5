import { strict as assert } from 'node:assert';
import { beforeEach, test } from 'node:test';
import { ReportPanels } from '../src/report';
import { mock } from './mock/vscode';

interface Sent { command: string; args: unknown[] }

const PAGE = '<!doctype html><html><body><h1>Episode e1: add_custom</h1><svg></svg></body></html>';

function panels(answer: (s: Sent) => unknown) {
  const sent: Sent[] = [];
  const p = new ReportPanels(async (command, args) => {
    const s = { command, args };
    sent.push(s);
    return answer(s);
  });
  return { p, sent };
}

beforeEach(() => mock.reset());

test('the server renders the page; the panel shows it as is, without scripts', async () => {
  const { p, sent } = panels(() => ({ episode: 'e1', title: 'Episode e1', html: PAGE }));
  assert.equal(await p.show({ episode: 'e1' }), true);
  assert.deepEqual(sent, [{ command: 'ascendopt.episodeReport', args: [{ episode: 'e1' }] }]);
  assert.equal(mock.webviews.length, 1);
  const [panel] = mock.webviews;
  assert.equal(panel!.webview.html, PAGE);
  assert.equal(panel!.title, 'Episode e1');
  assert.equal(panel!.options.enableScripts, false);
});

test('asking again for the same episode reuses its panel with the fresh page; a closed one is made anew', async () => {
  let n = 0;
  const { p } = panels(() => ({ episode: 'e1', html: `${PAGE}<!-- ${++n} -->` }));
  await p.show({ episode: 'e1' });
  await p.show({ episode: 'e1' });
  assert.equal(mock.webviews.length, 1);
  assert.equal(mock.webviews[0]!.revealed, 1);
  assert.match(mock.webviews[0]!.webview.html, /<!-- 2 -->/);
  mock.webviews[0]!.dispose();
  await p.show({ episode: 'e1' });
  assert.equal(mock.webviews.length, 2);
});

test('no report: the server’s reason is shown and no panel opens', async () => {
  const { p } = panels(() => ({ error: 'add_custom has no episode yet: run Optimize first' }));
  assert.equal(await p.show({ operatorRoot: '/ws/add_custom', name: 'add_custom' }), false);
  assert.equal(mock.webviews.length, 0);
  assert.match(mock.messages[0]!.text, /no episode yet: run Optimize first/);
});

test('dispose closes every panel', async () => {
  const { p } = panels((s) => ({ episode: (s.args[0] as { episode: string }).episode, html: PAGE }));
  await p.show({ episode: 'a' });
  await p.show({ episode: 'b' });
  p.dispose();
  assert.deepEqual(mock.webviews.map((w) => w.disposed), [true, true]);
});
