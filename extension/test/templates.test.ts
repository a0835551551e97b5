import { strict as assert } from 'node:assert';
import { test } from 'node:test';
import { COPY_TEMPLATE, LIST_TEMPLATES, openTemplate } from '../src/templates';
import { mock, Uri } from './mock/vscode';

const TEMPLATES = [
  { name: 'add_custom', summary: 'z = x + y, rounded once to the output dtype' },
  { name: 'softmax_custom', summary: 'y = softmax(x) over the last axis, in float64' },
];

test('open template: one line per template, copied where the user says, its kernel opened', async () => {
  mock.reset();
  mock.workspaceFolders = [{ uri: Uri.file('/ws'), name: 'ws', index: 0 }];
  const shown: unknown[] = [];
  mock.quickPickAnswers.push((items) => {
    shown.push(...items);
    return items[1];
  });
  mock.openDialogAnswers.push(Uri.file('/ws/ops'));
  const sent: unknown[][] = [];
  const path = await openTemplate(async (command, args) => {
    sent.push([command, ...args]);
    return command === LIST_TEMPLATES ? TEMPLATES : { status: 'ok', path: '/ws/ops/softmax_custom' };
  });
  assert.deepEqual(shown, [
    { label: 'add_custom', description: 'z = x + y, rounded once to the output dtype' },
    { label: 'softmax_custom', description: 'y = softmax(x) over the last axis, in float64' },
  ]);
  assert.deepEqual(sent[1], [COPY_TEMPLATE, { name: 'softmax_custom', to: '/ws/ops' }]);
  assert.equal(path, '/ws/ops/softmax_custom');
  assert.equal(mock.opened[0]!.uri, Uri.file('/ws/ops/softmax_custom/op_kernel/softmax_custom.cpp').toString());
});

test('open template: outside the workspace it opens the folder; a refused copy says why', async () => {
  mock.reset();
  mock.quickPickAnswers.push((items) => items[0]);
  mock.openDialogAnswers.push(Uri.file('/elsewhere'));
  await openTemplate(async (command) => (command === LIST_TEMPLATES ? TEMPLATES : { status: 'ok', path: '/elsewhere/add_custom' }));
  assert.ok(mock.executed.some((e) => e.command === 'vscode.openFolder'));

  mock.reset();
  mock.quickPickAnswers.push((items) => items[0]);
  mock.openDialogAnswers.push(Uri.file('/ws'));
  const none = await openTemplate(async (command) =>
    command === LIST_TEMPLATES ? TEMPLATES : { status: 'error', message: '/ws/add_custom exists; choose another folder' },
  );
  assert.equal(none, undefined);
  assert.match(mock.messages[0]!.text, /exists; choose another folder/);
});
