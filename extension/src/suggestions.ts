/**
 * Reviewing a suggestion: a notification with the speedup, VS Code's diff editor per changed file
 * (the file on disk vs the proposal, served read-only on the `ascendopt-proposed` scheme), and
 * Accept / Reject in the notification and as editor-title actions on those diffs. Accept needs the
 * diff to have been opened (else it offers to open it). The server applies both files or neither
 * (`ascendopt.acceptSuggestion`), so the client only asks and then closes the diffs. Every text
 * about the outcome is the server's (`outcome`: agent/outcome.py); the client only shows it.
 */

import * as vscode from 'vscode';
import { ContextKey, Scheme, ServerCommand } from './constants';
import type { AcceptResult, RejectResult, SuggestionFile, SuggestionParams } from './protocol';

export type SendCommand = (command: string, args: unknown[]) => Promise<unknown>;

export interface Log {
  info(message: string): void;
  warn(message: string): void;
  error(message: string): void;
}

export function formatSpeedup(geomean: number): string {
  return `${geomean.toFixed(2)}×`;
}

/** The notification's text: the server's title (operator, then the outcome's headline with any
 * slower case) plus the files. */
export function notificationText(s: SuggestionParams): string {
  const kinds = new Set(s.speedups.map((sp) => sp.kind));
  const label = !s.outcome && kinds.size === 1 && kinds.has('estimate') ? ' (estimate)' : '';
  const files = s.files.map((f) => f.path).join(' + ');
  return `${s.title}${label} — ${files}. Review the paired diff?`;
}

/** The speedup as the CLI words it: the outcome's title ("1.42× faster (estimate)"), else the
 * geomean and what its durations are. */
function speedupTitle(s: SuggestionParams): string {
  if (s.outcome) return s.outcome.title;
  const kinds = new Set(s.speedups.map((sp) => sp.kind));
  const timing = kinds.size === 0 ? '' : kinds.size === 1 ? ` (${[...kinds][0]})` : ' (mixed)';
  return `${formatSpeedup(s.geomean)}${timing}`;
}

/** The title of the one editor that shows every file of a suggestion (VS Code's multi-diff editor). */
export function reviewTitle(s: SuggestionParams): string {
  return `${s.operator} ${speedupTitle(s)}: ${s.files.map((f) => f.path).join(' + ')} (current ↔ proposed)`;
}

export function diffTitle(s: SuggestionParams, file: SuggestionFile): string {
  return `${s.operator} ${speedupTitle(s)}: ${file.path} (current ↔ proposed)`;
}

/** `ascendopt-proposed:/<id>/<path relative to the operator>`: the path keeps the language mode.
 * With `onDisk`, the path is the file's own and the id and relative path ride in the query, so a
 * diff of the two reads as a change of that file (the multi-diff editor shows no rename). */
export function proposedUri(id: string, path: string, onDisk?: vscode.Uri): vscode.Uri {
  return suggestionUri(Scheme.proposed, id, path, onDisk);
}

export function baseUri(id: string, path: string, onDisk?: vscode.Uri): vscode.Uri {
  return suggestionUri(Scheme.base, id, path, onDisk);
}

function suggestionUri(scheme: string, id: string, path: string, onDisk?: vscode.Uri): vscode.Uri {
  if (onDisk) {
    return vscode.Uri.from({ scheme, path: onDisk.path, query: `${encodeURIComponent(id)}/${path}` });
  }
  return vscode.Uri.from({ scheme, path: `/${encodeURIComponent(id)}/${path}` });
}

/** The suggestion id and file path of a proposed/base document URI. */
export function parseSuggestionUri(uri: vscode.Uri): { id: string; path: string } | undefined {
  if (uri.scheme !== Scheme.proposed && uri.scheme !== Scheme.base) {
    return undefined;
  }
  const m = /^\/?([^/]+)\/(.+)$/.exec(uri.query || uri.path);
  if (!m) {
    return undefined;
  }
  return { id: decodeURIComponent(m[1]!), path: m[2]! };
}

/** Offered, undecided suggestions, by id. */
export class SuggestionStore {
  private readonly byId = new Map<string, SuggestionParams>();
  private readonly emitter = new vscode.EventEmitter<void>();
  readonly onDidChange = this.emitter.event;

  add(s: SuggestionParams): void {
    this.byId.set(s.id, s);
    this.changed();
  }

  get(id: string): SuggestionParams | undefined {
    return this.byId.get(id);
  }

  remove(id: string): void {
    if (this.byId.delete(id)) {
      this.changed();
    }
  }

  all(): SuggestionParams[] {
    return [...this.byId.values()];
  }

  latest(): SuggestionParams | undefined {
    const all = this.all();
    return all[all.length - 1];
  }

  file(id: string, path: string): SuggestionFile | undefined {
    return this.byId.get(id)?.files.find((f) => f.path === path);
  }

  private changed(): void {
    void vscode.commands.executeCommand('setContext', ContextKey.hasSuggestion, this.byId.size > 0);
    this.emitter.fire();
  }
}

/** Serves the proposed (and, when the disk moved on, the base) text read-only. */
export class SuggestionContentProvider implements vscode.TextDocumentContentProvider {
  constructor(private readonly store: SuggestionStore) {}

  provideTextDocumentContent(uri: vscode.Uri): string {
    const where = parseSuggestionUri(uri);
    const file = where && this.store.file(where.id, where.path);
    if (!file) {
      return '// This suggestion was decided or is no longer available.\n';
    }
    return uri.scheme === Scheme.base ? file.current : file.proposed;
  }
}

export class SuggestionReview {
  /** Suggestions whose diff was opened: only those may be accepted. */
  private readonly reviewed = new Set<string>();
  /** Multi-diff editor title → suggestion id: its tab has no input type the API exposes. */
  private readonly reviewing = new Map<string, string>();

  constructor(
    private readonly store: SuggestionStore,
    private readonly send: SendCommand,
    private readonly log: Log,
    private readonly readDisk: (uri: vscode.Uri) => Promise<string | undefined> = readFileText,
  ) {}

  /** On `ascendopt/suggestion`: remember it and offer Review / Accept / Reject. */
  async offer(s: SuggestionParams): Promise<void> {
    this.store.add(s);
    this.log.info(`suggestion ${s.id}: ${s.title}; files ${s.files.map((f) => f.path).join(', ')}`);
    const choice = await vscode.window.showInformationMessage(notificationText(s), 'Review', 'Accept', 'Reject');
    if (choice === 'Review') {
      await this.review(s.id);
    } else if (choice === 'Accept') {
      await this.accept(s.id);
    } else if (choice === 'Reject') {
      await this.reject(s.id);
    }
  }

  /** Every changed file in one multi-diff editor (Accept/Reject once, in its title), left the file
   * as it is (or the episode's base if the disk has moved on since), right the proposal. One diff
   * editor per file where the multi-diff editor is missing. */
  async review(id?: string): Promise<void> {
    const s = id ? this.store.get(id) : this.store.latest();
    if (!s) {
      void vscode.window.showWarningMessage('AscendOptimizer: that suggestion was already decided.');
      return;
    }
    this.reviewed.add(s.id);
    let moved = false;
    const sides: [vscode.Uri, vscode.Uri, vscode.Uri, SuggestionFile][] = [];
    for (const file of s.files) {
      const onDisk = vscode.Uri.parse(file.uri);
      const text = await this.readDisk(onDisk);
      const left = text === file.current ? onDisk : baseUri(s.id, file.path, onDisk);
      moved ||= text !== file.current;
      sides.push([onDisk, left, proposedUri(s.id, file.path, onDisk), file]);
    }
    const title = reviewTitle(s);
    try {
      await vscode.commands.executeCommand('vscode.changes', title, sides.map(([label, left, right]) => [label, left, right]));
      this.reviewing.set(title, s.id);
    } catch (err) {
      this.log.warn(`multi-diff editor unavailable (${String(err)}); one diff per file`);
      for (const [, left, right, file] of sides) {
        await vscode.commands.executeCommand('vscode.diff', left, right, diffTitle(s, file), { preview: false });
      }
    }
    if (moved) {
      void vscode.window.showWarningMessage(
        `${s.operator}: files changed on disk since the episode started; the diff shows the episode's base, and Accept will report the suggestion stale.`,
      );
    }
  }

  async accept(id?: string): Promise<boolean> {
    const s = id ? this.store.get(id) : this.store.latest();
    if (!s) {
      void vscode.window.showWarningMessage('AscendOptimizer: no pending suggestion to accept.');
      return false;
    }
    if (!this.reviewed.has(s.id)) {
      const open = 'Review the diff';
      const choice = await vscode.window.showWarningMessage(
        `${s.operator}: open the paired diff before accepting it (${s.files.map((f) => f.path).join(' + ')}).`,
        open,
      );
      if (choice === open) {
        await this.review(s.id);
      }
      return false;
    }
    // Unsaved edits in a changed file make the suggestion stale (the server checks the buffers it
    // knows); saving is the user's call, so just say why.
    const result = (await this.send(ServerCommand.accept, [s.id])) as AcceptResult | null;
    if (result?.applied) {
      this.log.info(`suggestion ${s.id} accepted: ${(result.files ?? []).join(', ')}`);
      this.store.remove(s.id);
      await this.close(s.id);
      return true;
    }
    if (result?.stale && result.stale.length > 0) {
      // The server shows "stale … Re-run optimization" itself (window/showMessageRequest).
      this.log.warn(`suggestion ${s.id} is stale: ${result.stale.join(', ')} changed since the episode started`);
      this.store.remove(s.id);
      await this.close(s.id);
      return false;
    }
    const message = result?.message ?? 'the server did not apply the suggestion';
    this.log.warn(`suggestion ${s.id} not applied: ${message}`);
    if (/already|no pending/.test(message)) {
      this.store.remove(s.id);
      await this.close(s.id);
    }
    return false;
  }

  async reject(id?: string): Promise<boolean> {
    const s = id ? this.store.get(id) : this.store.latest();
    if (!s) {
      void vscode.window.showWarningMessage('AscendOptimizer: no pending suggestion to reject.');
      return false;
    }
    const result = (await this.send(ServerCommand.reject, [s.id])) as RejectResult | null;
    this.store.remove(s.id);
    await this.close(s.id);
    if (result?.rejected) {
      this.log.info(`suggestion ${s.id} rejected; no file changed`);
      void vscode.window.showInformationMessage(`${s.operator}: suggestion rejected; no file was changed.`);
      return true;
    }
    this.log.warn(`reject ${s.id}: ${result?.message ?? 'no answer'}`);
    return false;
  }

  private async close(id: string): Promise<void> {
    const titles = [...this.reviewing].filter(([, v]) => v === id).map(([k]) => k);
    titles.forEach((t) => this.reviewing.delete(t));
    await closeDiffs(id, titles);
  }

  /** The suggestion behind an editor-title click: the clicked resource, else the active diff. */
  idFrom(resource: unknown): string | undefined {
    if (typeof resource === 'string') {
      return resource;
    }
    const node = resource as { suggestionId?: unknown } | undefined;
    if (node && typeof node.suggestionId === 'string') {
      return node.suggestionId; // a sidebar item
    }
    if (resource instanceof vscode.Uri) {
      const parsed = parseSuggestionUri(resource);
      if (parsed) {
        return parsed.id;
      }
    }
    const tab = vscode.window.tabGroups.activeTabGroup.activeTab;
    const input = tab?.input;
    if (input instanceof vscode.TabInputTextDiff) {
      return parseSuggestionUri(input.modified)?.id;
    }
    const reviewed = tab ? [...this.reviewing].find(([title]) => sameEditor(tab.label, title))?.[1] : undefined;
    return reviewed ?? this.store.latest()?.id;
  }
}

async function readFileText(uri: vscode.Uri): Promise<string | undefined> {
  try {
    return new TextDecoder().decode(await vscode.workspace.fs.readFile(uri));
  } catch {
    return undefined;
  }
}

/** A multi-diff editor's tab label is its title plus VS Code's " (N files)". */
function sameEditor(label: string, title: string): boolean {
  return label === title || label.startsWith(title + ' (');
}

/** Close every diff tab of suggestion `id` (and its multi-diff editor, known by its titles). */
export async function closeDiffs(id: string, titles: string[] = []): Promise<void> {
  const tabs: vscode.Tab[] = [];
  for (const group of vscode.window.tabGroups.all) {
    for (const tab of group.tabs) {
      const input = tab.input;
      if ((input instanceof vscode.TabInputTextDiff && parseSuggestionUri(input.modified)?.id === id) || titles.some((t) => sameEditor(tab.label, t))) {
        tabs.push(tab);
      }
    }
  }
  if (tabs.length > 0) {
    await vscode.window.tabGroups.close(tabs, true);
  }
}
