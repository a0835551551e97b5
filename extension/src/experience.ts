/** "Show experience bank": the server's lessons as a read-only Markdown document. */

import type { ExperienceResult, Lesson } from './protocol';

function us(v: number | null | undefined): string {
  return typeof v === 'number' ? `${v.toFixed(1)} µs` : '?';
}

function lessonLine(l: Lesson): string[] {
  const facts = [l.family, l.bottleneck, l.bound].filter((x): x is string => !!x);
  const out = [`## ${l.title}`, ''];
  if (facts.length) {
    out.push(`- ${facts.join(' · ')}`);
  }
  if (l.slowUs != null || l.fastUs != null) {
    const ratio = l.slowUs && l.fastUs ? ` (${(l.slowUs / l.fastUs).toFixed(2)}×${l.timing ? ', ' + l.timing : ''})` : '';
    out.push(`- ${us(l.slowUs)} → ${us(l.fastUs)}${ratio}`);
  }
  const origin = [l.operator, l.provenance].filter((x): x is string => !!x).join(', ');
  if (origin) {
    out.push(`- from ${origin}`);
  }
  out.push(`- id \`${l.id}\``, '');
  return out;
}

export function renderExperience(result: ExperienceResult): string {
  const lines = ['# AscendOptimizer experience bank', ''];
  if (result.workspace) {
    lines.push(`Workspace: \`${result.workspace}\``, '');
  }
  if (!result.lessons.length) {
    lines.push(result.message ? `No lessons: ${result.message}.` : 'No lessons yet: optimization episodes and `ascendopt mine` add them.');
    return lines.join('\n') + '\n';
  }
  lines.push(`${result.lessons.length} lesson${result.lessons.length === 1 ? '' : 's'}, newest first.`, '');
  for (const l of result.lessons) {
    lines.push(...lessonLine(l));
  }
  return lines.join('\n');
}
