/**
 * The AscendOptimizer view in the activity bar: operators with the state of their spec and their
 * last Verify/Profile, the episodes in the workspace with their outcome, the suggestions waiting
 * for a decision (Review/Accept/Reject inline) and the experience bank (a lesson opens as a
 * rendered Markdown preview). All of it is one `ascendopt/workspaceState` answer from the server.
 */

import * as vscode from 'vscode';
import { ClientCommand, Scheme } from './constants';
import type { StateEpisode, StateLesson, StateOperator, StateSuggestion, WorkspaceState } from './protocol';

export const VIEW_ID = 'ascendopt.sidebar';
export const WORKSPACE_STATE = 'ascendopt/workspaceState';

type Group = 'operators' | 'suggestions' | 'episodes' | 'lessons';

export type SidebarNode =
  | { kind: 'group'; group: Group }
  | { kind: 'operator'; op: StateOperator }
  | { kind: 'episode'; episode: StateEpisode }
  | { kind: 'suggestion'; suggestion: StateSuggestion; suggestionId: string }
  | { kind: 'lesson'; lesson: StateLesson };

const GROUP_LABEL: Record<Group, string> = {
  operators: 'Operators',
  suggestions: 'Pending suggestions',
  episodes: 'Episodes',
  lessons: 'Experience bank',
};

const EMPTY: WorkspaceState = { folders: [], operators: [], episodes: [], suggestions: [], lessons: [], message: null };

export function lessonUri(id: string): vscode.Uri {
  return vscode.Uri.from({ scheme: Scheme.experience, path: `/lessons/${id}.md` });
}

/** `1.12× · 24 evaluations`, `cancelled after 6 evaluations`, `no gain: …`, `running or interrupted`. */
export function episodeOutcome(e: StateEpisode): string {
  if (!e.ended) {
    return 'running or interrupted';
  }
  if (e.cancelled) {
    return `cancelled after ${e.evaluations} evaluation${e.evaluations === 1 ? '' : 's'}`;
  }
  if (e.bestSpeedup != null) {
    return `${e.bestSpeedup.toFixed(2)}× · ${e.evaluations} evaluations`;
  }
  return `no gain · ${e.evaluations} evaluations`;
}

export function operatorDescription(op: StateOperator): string {
  const parts = [op.running ? 'optimizing…' : '', op.spec === 'ok' ? '' : `spec ${op.spec}`];
  if (op.lastVerify) {
    parts.push(op.lastVerify.replace(`${op.name}: `, ''));
  }
  if (op.lastProfile) {
    parts.push(op.lastProfile);
  }
  return parts.filter((p) => p).join(' · ') || 'not verified yet';
}

export class Sidebar implements vscode.TreeDataProvider<SidebarNode> {
  private state: WorkspaceState = EMPTY;
  private readonly emitter = new vscode.EventEmitter<SidebarNode | undefined>();
  readonly onDidChangeTreeData = this.emitter.event;

  constructor(private readonly fetch: () => Promise<WorkspaceState | undefined>) {}

  /** Ask the server again (after any notification that changes what the view shows). */
  async refresh(): Promise<void> {
    try {
      this.state = (await this.fetch()) ?? EMPTY;
    } catch {
      this.state = EMPTY;
    }
    this.emitter.fire(undefined);
  }

  lesson(id: string): StateLesson | undefined {
    return this.state.lessons.find((l) => l.id === id);
  }

  /** The content provider for `ascendopt-experience:/lessons/<id>.md`. */
  lessonMarkdown(uri: vscode.Uri): string | undefined {
    const m = /^\/lessons\/(.+)\.md$/.exec(uri.path);
    return m ? this.lesson(m[1]!)?.markdown : undefined;
  }

  getChildren(node?: SidebarNode): SidebarNode[] {
    const s = this.state;
    if (!node) {
      const groups: Group[] = ['operators', 'suggestions', 'episodes', 'lessons'];
      return groups.filter((g) => g !== 'suggestions' || s.suggestions.length > 0).map((group) => ({ kind: 'group', group }));
    }
    if (node.kind !== 'group') {
      return [];
    }
    switch (node.group) {
      case 'operators':
        return s.operators.map((op) => ({ kind: 'operator', op }));
      case 'suggestions':
        return s.suggestions.map((suggestion) => ({ kind: 'suggestion', suggestion, suggestionId: suggestion.id }));
      case 'episodes':
        return s.episodes.map((episode) => ({ kind: 'episode', episode }));
      case 'lessons':
        return s.lessons.map((lesson) => ({ kind: 'lesson', lesson }));
    }
  }

  getTreeItem(node: SidebarNode): vscode.TreeItem {
    switch (node.kind) {
      case 'group': {
        const count = this.getChildren(node).length;
        const item = new vscode.TreeItem(`${GROUP_LABEL[node.group]} (${count})`, vscode.TreeItemCollapsibleState.Expanded);
        item.contextValue = `group.${node.group}`;
        if (node.group === 'lessons' && this.state.message) {
          item.description = this.state.message;
        }
        return item;
      }
      case 'operator': {
        const op = node.op;
        const item = new vscode.TreeItem(op.name, vscode.TreeItemCollapsibleState.None);
        item.description = operatorDescription(op);
        item.tooltip = [op.root, op.specProblem ?? `spec: ${op.spec}`, op.lastVerify, op.lastProfile].filter((x) => x).join('\n');
        item.iconPath = new vscode.ThemeIcon(op.running ? 'sync~spin' : op.spec === 'ok' ? 'circuit-board' : 'warning');
        item.contextValue = 'operator';
        item.resourceUri = vscode.Uri.parse(op.kernel);
        item.command = { title: 'Open kernel', command: 'vscode.open', arguments: [vscode.Uri.parse(op.kernel)] };
        return item;
      }
      case 'episode': {
        const e = node.episode;
        const item = new vscode.TreeItem(e.operator, vscode.TreeItemCollapsibleState.None);
        item.description = episodeOutcome(e);
        item.tooltip = `${e.id}\n${e.message}`;
        item.iconPath = new vscode.ThemeIcon(
          !e.ended ? 'history' : e.cancelled ? 'circle-slash' : e.bestSpeedup != null ? 'pass' : 'dash',
        );
        // Interrupted (no end recorded) or cancelled: `optimize --resume` continues it.
        item.contextValue = !e.ended || e.cancelled ? 'episode-resumable' : 'episode';
        return item;
      }
      case 'suggestion': {
        const s = node.suggestion;
        const item = new vscode.TreeItem(s.operator, vscode.TreeItemCollapsibleState.None);
        item.description = `${s.geomean.toFixed(2)}× (geomean, ${s.timing}) — review before accepting`;
        item.tooltip = s.summary;
        item.iconPath = new vscode.ThemeIcon('git-compare');
        item.contextValue = 'suggestion';
        item.command = { title: 'Review', command: ClientCommand.review, arguments: [s.id] };
        return item;
      }
      case 'lesson': {
        const l = node.lesson;
        const item = new vscode.TreeItem(l.title, vscode.TreeItemCollapsibleState.None);
        item.description = l.family ?? '';
        item.iconPath = new vscode.ThemeIcon('book');
        item.contextValue = 'lesson';
        item.command = { title: 'Open lesson', command: 'markdown.showPreview', arguments: [lessonUri(l.id)] };
        return item;
      }
    }
  }
}
