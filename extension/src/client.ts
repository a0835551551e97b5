/** The language client: `python -m ascendopt serve` over stdio, with the suggestion-view capability. */

import * as vscode from 'vscode';
import {
  type ClientCapabilities,
  type Disposable,
  type Executable,
  type FeatureState,
  LanguageClient,
  type LanguageClientOptions,
  RevealOutputChannelOn,
  type StaticFeature,
  WorkDoneProgress,
  WorkDoneProgressCancelNotification,
  WorkDoneProgressCreateRequest,
} from 'vscode-languageclient/node';
import { ClientCommand, SECTION } from './constants';
import { ProgressNotifications } from './progress';
import type { StatusModel } from './status';

/** Declares `capabilities.experimental.ascendopt.suggestionView`: the server then sends no
 * workspace/applyEdit preview, and this extension shows the suggestion in its own diff view. */
export class SuggestionViewFeature implements StaticFeature {
  fillClientCapabilities(capabilities: ClientCapabilities): void {
    const experimental = (capabilities.experimental ?? {}) as Record<string, unknown>;
    capabilities.experimental = { ...experimental, ascendopt: { suggestionView: true } };
  }
  initialize(): void {}
  getState(): FeatureState {
    return { kind: 'static' };
  }
  clear(): void {}
}

/**
 * Server-initiated work-done progress as a cancellable notification (progress.ts). Registered after
 * vscode-languageclient's own ProgressFeature, so its `window/workDoneProgress/create` handler is
 * the one in force (the built-in one shows a status-bar progress without Cancel).
 */
export class ProgressNotificationFeature implements StaticFeature {
  private readonly perToken = new Map<string, Disposable>();
  private notifications: ProgressNotifications | undefined;

  constructor(
    private readonly client: LanguageClient,
    private readonly status: StatusModel,
  ) {}

  fillClientCapabilities(capabilities: ClientCapabilities): void {
    capabilities.window = { ...(capabilities.window ?? {}), workDoneProgress: true };
  }

  initialize(): void {
    const client = this.client;
    const notifications = new ProgressNotifications(this.status, (token) => {
      void client.sendNotification(WorkDoneProgressCancelNotification.type, { token });
    });
    this.notifications = notifications;
    client.onRequest(WorkDoneProgressCreateRequest.type, ({ token }) => {
      const key = String(token);
      this.perToken.get(key)?.dispose();
      this.perToken.set(
        key,
        client.onProgress(WorkDoneProgress.type, token, (value) => {
          notifications.handle(token, value);
          if (value.kind === 'end') {
            this.perToken.get(key)?.dispose();
            this.perToken.delete(key);
          }
        }),
      );
    });
  }

  getState(): FeatureState {
    return { kind: 'static' };
  }

  clear(): void {
    for (const d of this.perToken.values()) {
      d.dispose();
    }
    this.perToken.clear();
    this.notifications?.clear();
  }
}

export class AscendLanguageClient extends LanguageClient {
  constructor(serverOptions: Executable, clientOptions: LanguageClientOptions, status: StatusModel) {
    super(SECTION, 'AscendOptimizer', serverOptions, clientOptions);
    this.registerFeature(new SuggestionViewFeature());
    this.registerFeature(new ProgressNotificationFeature(this, status));
  }
}

export const DOCUMENT_SELECTOR = [
  { scheme: 'file', language: 'cpp' },
  { scheme: 'file', language: 'c' },
  { scheme: 'file', pattern: '**/ascendopt.toml' },
];

export interface ClientSetup {
  python: string;
  env: NodeJS.ProcessEnv;
  cwd: string | undefined;
  initializationOptions: Record<string, unknown>;
  outputChannel: vscode.LogOutputChannel;
  status: StatusModel;
}

export function createClient(setup: ClientSetup): AscendLanguageClient {
  const serverOptions: Executable = {
    command: setup.python,
    args: ['-m', 'ascendopt', 'serve'],
    options: { env: setup.env, ...(setup.cwd ? { cwd: setup.cwd } : {}) },
  };
  const clientOptions: LanguageClientOptions = {
    documentSelector: DOCUMENT_SELECTOR,
    outputChannel: setup.outputChannel,
    revealOutputChannelOn: RevealOutputChannelOn.Never,
    initializationOptions: setup.initializationOptions,
    // didChangeConfiguration on any ascendopt.* change; the server then re-reads
    // workspace/configuration (the API key is never part of it).
    synchronize: { configurationSection: SECTION },
    // Hovers may run one command: the "more" link that opens the whole profile.
    markdown: { isTrusted: { enabledCommands: [ClientCommand.openProfile] }, supportHtml: false },
  };
  return new AscendLanguageClient(serverOptions, clientOptions, setup.status);
}
