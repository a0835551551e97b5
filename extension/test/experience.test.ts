import { strict as assert } from 'node:assert';
import { test } from 'node:test';
import { renderExperience } from '../src/experience';

test('renderExperience: lessons with facts, timing and origin', () => {
  const md = renderExperience({
    workspace: '/ws',
    count: 1,
    lessons: [
      {
        id: 'L1',
        title: 'Double-buffer the input queues',
        family: 'elementwise',
        bottleneck: 'mte2',
        bound: 'memory',
        timing: 'estimate',
        slowUs: 20,
        fastUs: 10,
        provenance: 'rewind',
        operator: 'add_custom',
      },
    ],
  });
  assert.match(md, /^# AscendOptimizer experience bank/);
  assert.match(md, /## Double-buffer the input queues/);
  assert.match(md, /elementwise · mte2 · memory/);
  assert.match(md, /20\.0 µs → 10\.0 µs \(2\.00×, estimate\)/);
  assert.match(md, /from add_custom, rewind/);
  assert.match(md, /1 lesson, newest first/);
});

test('renderExperience: an empty bank says how lessons arrive', () => {
  assert.match(renderExperience({ lessons: [] }), /No lessons yet/);
  assert.match(renderExperience({ lessons: [], message: 'no workspace folder' }), /No lessons: no workspace folder\./);
});
