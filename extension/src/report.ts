/**
 * The episode report in a webview. The server renders the page (`ascendopt.episodeReport`, the same
 * HTML `ascendopt report` writes); the client only shows it. One panel per episode: asking again
 * brings it forward with the page as it is now. No scripts run in it (the page has none).
 */

import * as vscode from 'vscode';
import { ServerCommand } from './constants';
import type { ReportResult } from './protocol';
import type { SendCommand } from './suggestions';

export const REPORT_VIEW = 'ascendopt.report';

/** What the command takes: an episode id, or an operator target (its newest episode). */
export type ReportArg = { episode: string } | Record<string, unknown>;

export class ReportPanels implements vscode.Disposable {
  private readonly panels = new Map<string, vscode.WebviewPanel>();

  constructor(private readonly send: SendCommand) {}

  /** Ask the server for the page and show it; false (with the server's reason) if there is none. */
  async show(arg: ReportArg): Promise<boolean> {
    let result: ReportResult | null;
    try {
      result = (await this.send(ServerCommand.episodeReport, [arg])) as ReportResult | null;
    } catch (err) {
      void vscode.window.showErrorMessage(`AscendOptimizer: ${err instanceof Error ? err.message : String(err)}`);
      return false;
    }
    if (!result?.html || !result.episode) {
      void vscode.window.showWarningMessage(`AscendOptimizer: ${result?.error ?? 'no report'}`);
      return false;
    }
    const episode = result.episode;
    let panel = this.panels.get(episode);
    if (panel) {
      panel.reveal(vscode.ViewColumn.Beside);
    } else {
      panel = vscode.window.createWebviewPanel(REPORT_VIEW, result.title ?? `Episode ${episode}`, vscode.ViewColumn.Beside, {
        enableScripts: false,
      });
      this.panels.set(episode, panel);
      panel.onDidDispose(() => this.panels.delete(episode));
    }
    panel.webview.html = result.html;
    return true;
  }

  dispose(): void {
    for (const panel of [...this.panels.values()]) {
      panel.dispose();
    }
    this.panels.clear();
  }
}
