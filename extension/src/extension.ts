/** Activation: the output channel, status item, suggestion documents, commands, and the server. */

import * as path from 'node:path';
import * as vscode from 'vscode';
import { createClient } from './client';
import { ClientCommand, OUTPUT_NAME, Scheme } from './constants';
import { type ClientLike, Controller } from './controller';
import { selectedInterpreter, type PythonExtensionApi } from './interpreter';
import { basePythons, files, hasAscendopt, run } from './nodeDeps';
import { bundledPackage, ensurePrivateEnv } from './privateEnv';
import { Sidebar, VIEW_ID } from './sidebar';
import { StatusModel } from './status';
import { bindBackendStatus, bindStatusItem, bindSuggestionStatus } from './statusItem';
import { SuggestionContentProvider, SuggestionStore } from './suggestions';

let controller: Controller | undefined;

async function pythonExtensionPath(): Promise<string | undefined> {
  const ext = vscode.extensions.getExtension<PythonExtensionApi>('ms-python.python');
  if (!ext) {
    return undefined;
  }
  const api = ext.isActive ? ext.exports : await ext.activate();
  return selectedInterpreter(api, vscode.workspace.workspaceFolders?.[0]?.uri);
}

export async function activate(context: vscode.ExtensionContext): Promise<void> {
  const log = vscode.window.createOutputChannel(OUTPUT_NAME, { log: true });
  const status = new StatusModel();
  const store = new SuggestionStore();
  status.setBackend(vscode.workspace.getConfiguration('ascendopt').get<string>('backend') || 'cpu-twin');
  context.subscriptions.push(
    log,
    bindStatusItem(status),
    bindBackendStatus(status),
    bindSuggestionStatus(store),
    vscode.workspace.onDidChangeConfiguration((e) => {
      if (e.affectsConfiguration('ascendopt.backend')) {
        status.setBackend(vscode.workspace.getConfiguration('ascendopt').get<string>('backend') || 'cpu-twin');
      }
    }),
  );

  const consent = async (pkg: string): Promise<boolean> => {
    const create = 'Create environment';
    const own = 'Use my own Python…';
    const choice = await vscode.window.showInformationMessage(
      `AscendOptimizer runs a Python language server. Create a private Python environment for it in VS Code's storage and install the bundled ${pkg}? ` +
        'Its dependencies (pygls, numpy, …) are installed with pip from your package index.',
      create,
      own,
    );
    if (choice === own) {
      await vscode.commands.executeCommand('workbench.action.openSettings', 'ascendopt.server.pythonPath');
    }
    return choice === create;
  };

  controller = new Controller({
    context,
    log,
    status,
    store,
    createClient: (args) => createClient({ ...args, outputChannel: log }) as unknown as ClientLike,
    interpreter: {
      pythonExtensionPath,
      hasAscendopt,
      bundledWheel: () => bundledPackage({ bundleDir: path.join(context.extensionPath, 'server'), listDir: files.listDir }),
      privateEnv: () =>
        ensurePrivateEnv({
          storageDir: context.globalStorageUri.fsPath,
          bundleDir: path.join(context.extensionPath, 'server'),
          platform: process.platform,
          ...files,
          run,
          basePythons: async () => basePythons(process.platform, await pythonExtensionPath().catch(() => undefined)),
          consent,
          withProgress: (work) =>
            Promise.resolve(
              vscode.window.withProgress(
                { location: vscode.ProgressLocation.Notification, title: 'AscendOptimizer: setting up the Python server', cancellable: true },
                (progress, token) => {
                  const abort = new AbortController();
                  token.onCancellationRequested(() => abort.abort());
                  return work((message) => progress.report({ message }), abort.signal);
                },
              ),
            ),
          log: (line) => log.info(line),
        }),
    },
  });
  const c = controller;
  const sidebar = new Sidebar(() => c.workspaceState());
  const experience = c.experienceProvider();
  let jobs = 0;
  status.onChange(() => {
    if (status.jobs().length !== jobs) {
      jobs = status.jobs().length; // an episode started or ended: its operator's state changed
      void sidebar.refresh();
    }
  });
  context.subscriptions.push(
    vscode.window.registerTreeDataProvider(VIEW_ID, sidebar),
    c.onStateChanged(() => void sidebar.refresh()),
    store.onDidChange(() => void sidebar.refresh()),
    vscode.commands.registerCommand(ClientCommand.refreshSidebar, () => sidebar.refresh()),
  );
  context.subscriptions.push(
    c,
    ...c.registerCommands(),
    vscode.workspace.registerTextDocumentContentProvider(Scheme.proposed, new SuggestionContentProvider(store)),
    vscode.workspace.registerTextDocumentContentProvider(Scheme.base, new SuggestionContentProvider(store)),
    vscode.workspace.registerTextDocumentContentProvider(Scheme.experience, {
      onDidChange: experience.onDidChange,
      // A sidebar lesson (`/lessons/<id>.md`), else the whole bank.
      provideTextDocumentContent: (uri, token) => sidebar.lessonMarkdown(uri) ?? experience.provideTextDocumentContent(uri, token),
    }),
    vscode.workspace.onDidChangeConfiguration((e) => c.onConfigurationChanged(e)),
    context.secrets.onDidChange((e) => {
      if (e.key.startsWith('ascendopt.')) {
        log.info('the API key changed');
      }
    }),
  );
  // Not awaited: activation must not wait for a first-time environment setup.
  void c.start();
}

export async function deactivate(): Promise<void> {
  await controller?.stop();
  controller = undefined;
}
