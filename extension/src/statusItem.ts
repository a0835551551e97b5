/** The language status item ({} in the status bar next to the language mode) for operator files. */

import * as vscode from 'vscode';
import { ClientCommand } from './constants';
import type { StatusModel } from './status';
import { formatSpeedup, type SuggestionStore } from './suggestions';

export const STATUS_SELECTOR: vscode.DocumentSelector = [
  { scheme: 'file', pattern: '**/op_kernel/**' },
  { scheme: 'file', pattern: '**/op_host/**' },
  { scheme: 'file', pattern: '**/ascendopt.toml' },
];

const SEVERITY = {
  information: vscode.LanguageStatusSeverity.Information,
  warning: vscode.LanguageStatusSeverity.Warning,
  error: vscode.LanguageStatusSeverity.Error,
} as const;

export function bindStatusItem(status: StatusModel): vscode.Disposable {
  const item = vscode.languages.createLanguageStatusItem('ascendopt.server', STATUS_SELECTOR);
  item.name = 'AscendOptimizer';
  const render = (): void => {
    const v = status.view();
    item.text = v.text;
    item.detail = v.detail;
    item.busy = v.busy;
    item.severity = SEVERITY[v.severity];
    item.command =
      v.severity === 'information'
        ? { title: 'Log', command: ClientCommand.showOutput }
        : { title: 'Restart', command: ClientCommand.restart };
  };
  status.onChange(render);
  render();
  return item;
}

/** The always-visible status-bar entry: backend and the running episode; a click shows the log. */
export function bindBackendStatus(status: StatusModel): vscode.Disposable {
  const item = vscode.window.createStatusBarItem('ascendopt.backend', vscode.StatusBarAlignment.Left, 101);
  item.name = 'AscendOptimizer';
  item.command = { title: 'Show log', command: ClientCommand.showOutput };
  const render = (): void => {
    const v = status.barView();
    item.text = v.text;
    item.tooltip = v.tooltip;
  };
  status.onChange(render);
  render();
  item.show();
  return item;
}

/** A status-bar entry while a suggestion waits for a decision (the notification may have been
 * dismissed or may have timed out into the notification center). */
export function bindSuggestionStatus(store: SuggestionStore): vscode.Disposable {
  const item = vscode.window.createStatusBarItem('ascendopt.suggestion', vscode.StatusBarAlignment.Left, 100);
  item.name = 'AscendOptimizer suggestion';
  const render = (): void => {
    const s = store.latest();
    if (!s) {
      item.hide();
      return;
    }
    item.text = `$(git-compare) ${s.operator} ${formatSpeedup(s.geomean)} — Review`;
    item.tooltip = `${s.title}: ${s.summary}`;
    item.command = { title: 'Review', command: ClientCommand.review, arguments: [s.id] };
    item.show();
  };
  const sub = store.onDidChange(render);
  render();
  return { dispose: () => { sub.dispose(); item.dispose(); } };
}
