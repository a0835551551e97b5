import { strict as assert } from 'node:assert';
import { test } from 'node:test';
import * as vscode from 'vscode';
import { isOperatorFile, operatorPicks, targetFor } from '../src/targets';

const ops = [
  { name: 'add_custom', root: '/ws/add_custom', kernel: 'file:///ws/add_custom/op_kernel/add_custom.cpp' },
  { name: 'mul_custom', root: '/ws/mul_custom', kernel: 'file:///ws/mul_custom/op_kernel/mul_custom.cpp' },
];

test('isOperatorFile: op_kernel/op_host sources and ascendopt.toml', () => {
  assert.ok(isOperatorFile('/ws/add_custom/op_kernel/add_custom.cpp'));
  assert.ok(isOperatorFile('/ws/add_custom/op_host/add_custom_tiling.h'));
  assert.ok(isOperatorFile('C:\\ws\\add\\op_host\\add.cpp'));
  assert.ok(isOperatorFile('/ws/add_custom/ascendopt.toml'));
  assert.ok(!isOperatorFile('/ws/add_custom/reference.py'));
  assert.ok(!isOperatorFile('/ws/src/main.cpp'));
  assert.ok(!isOperatorFile('/ws/op_kernel_notes.txt'));
});

test('targetFor: the clicked file wins, then the active editor', () => {
  const clicked = vscode.Uri.file('/ws/mul_custom/op_host/mul_custom.cpp');
  const active = vscode.Uri.file('/ws/add_custom/op_kernel/add_custom.cpp');
  assert.deepEqual(targetFor(clicked, active, ops), { uri: clicked.toString() });
  assert.deepEqual(targetFor(undefined, active, ops), { uri: active.toString() });
});

test('targetFor: a non-operator file inside an indexed operator counts', () => {
  const ref = vscode.Uri.file('/ws/add_custom/reference.py');
  assert.deepEqual(targetFor(undefined, ref, ops), { uri: ref.toString() });
});

test('targetFor: elsewhere, the only operator; with several, undefined (ask)', () => {
  const other = vscode.Uri.file('/elsewhere/readme.md');
  assert.deepEqual(targetFor(undefined, other, [ops[0]!]), { operatorRoot: '/ws/add_custom', name: 'add_custom' });
  assert.equal(targetFor(undefined, other, ops), undefined);
  assert.equal(targetFor(undefined, undefined, []), undefined);
  // Not a file on disk (e.g. the proposed side of a diff): ignored.
  const virtual = vscode.Uri.from({ scheme: 'ascendopt-proposed', path: '/id/op_kernel/add_custom.cpp' });
  assert.equal(targetFor(virtual, undefined, ops), undefined);
});

test('operatorPicks: one pick per operator with its target', () => {
  const picks = operatorPicks(ops);
  assert.equal(picks.length, 2);
  assert.deepEqual(picks[1]!.target, { operatorRoot: '/ws/mul_custom', name: 'mul_custom' });
});
