/**
 * The extension's running part: finds the interpreter, starts and restarts the language client,
 * routes the server's notifications (index, evaluations, suggestions, episode ends) and carries
 * out the palette/context-menu commands. It imports only types from vscode-languageclient; the
 * client itself comes from a factory (extension.ts passes the real one; unit tests a fake).
 */

import * as vscode from 'vscode';
import { API_KEY_SECRET, ClientCommand, ContextKey, Notification, SECTION, Scheme, ServerCommand } from './constants';
import { renderExperience } from './experience';
import { type Interpreter, InterpreterError, resolveInterpreter, type InterpreterDeps } from './interpreter';
import type { CampaignEndedParams, EpisodeEndedParams, EvaluatedParams, ExperienceResult, IndexedOperator, IndexedParams, InitSpecResult, SuggestionParams, Target, WorkspaceState } from './protocol';
import { backendChoices, cannPathFrom, HUAWEI_EXTENSION, initializationOptions, needsRestart, readSettings, serverEnv, type AscendSettings } from './settings';
import type { StatusModel } from './status';
import { ReportPanels } from './report';
import { WORKSPACE_STATE } from './sidebar';
import { SuggestionReview, type SuggestionStore } from './suggestions';
import { operatorPicks, targetFor } from './targets';
import { openTemplate } from './templates';

/** What the controller needs of a vscode-languageclient LanguageClient. */
export interface ClientLike {
  start(): Promise<void>;
  stop(timeout?: number): Promise<void>;
  dispose(timeout?: number): Promise<void>;
  sendRequest(method: string, params: unknown): Promise<unknown>;
  onNotification(method: string, handler: (params: never) => void): vscode.Disposable;
  onDidChangeState(listener: (e: { oldState: number; newState: number }) => void): vscode.Disposable;
  readonly initializeResult: { capabilities: { executeCommandProvider?: { commands: string[] } } } | undefined;
}

export interface ClientFactoryArgs {
  python: string;
  env: NodeJS.ProcessEnv;
  cwd: string | undefined;
  initializationOptions: Record<string, unknown>;
  status: StatusModel;
}

export type ClientFactory = (args: ClientFactoryArgs) => ClientLike;

/** How long a command waits for the first operator index after the server started. */
export const INDEX_WAIT_MS = 15_000;

/** vscode-languageclient's State enum. */
const ClientState = { Stopped: 1, Running: 2, Starting: 3 } as const;

export interface ControllerDeps {
  context: Pick<vscode.ExtensionContext, 'secrets' | 'subscriptions'>;
  log: vscode.LogOutputChannel;
  status: StatusModel;
  store: SuggestionStore;
  createClient: ClientFactory;
  /** How long a command waits for the first index (default INDEX_WAIT_MS). */
  indexWaitMs?: number;
  /** Everything but the setting (read here) for resolving the interpreter. */
  interpreter: Omit<InterpreterDeps, 'settingPath' | 'log'>;
}

export class Controller implements vscode.Disposable {
  private client: ClientLike | undefined;
  private starting: Promise<ClientLike | undefined> | undefined;
  private operators: IndexedOperator[] = [];
  private indexedOnce: Promise<void> = Promise.resolve();
  private markIndexed: () => void = () => undefined;
  private settings: AscendSettings;
  private clientDisposables: vscode.Disposable[] = [];
  private experienceText = renderExperience({ lessons: [] });
  private readonly profileTexts = new Map<string, string>(); // `/profile/<op>.md` → Markdown
  private readonly experienceChanged = new vscode.EventEmitter<vscode.Uri>();
  /** Fires on every server notification that changes what the sidebar shows. */
  private readonly stateChanged = new vscode.EventEmitter<void>();
  readonly onStateChanged = this.stateChanged.event;
  readonly review: SuggestionReview;
  readonly reports: ReportPanels;
  interpreter: Interpreter | undefined;

  constructor(private readonly deps: ControllerDeps) {
    this.settings = this.readSettings();
    this.review = new SuggestionReview(deps.store, (command, args) => this.execute(command, args), deps.log);
    this.reports = new ReportPanels((command, args) => this.execute(command, args));
  }

  private readSettings(): AscendSettings {
    return readSettings(vscode.workspace.getConfiguration(SECTION));
  }

  get indexedOperators(): readonly IndexedOperator[] {
    return this.operators;
  }

  /** Start the server (if not running yet); resolves to the client, or undefined on failure. */
  start(): Promise<ClientLike | undefined> {
    if (!this.starting) {
      this.starting = this.doStart();
    }
    return this.starting;
  }

  private async doStart(): Promise<ClientLike | undefined> {
    const { status, log } = this.deps;
    this.settings = this.readSettings();
    status.setState('setup', 'finding the Python that runs the server');
    try {
      this.interpreter = await resolveInterpreter({
        ...this.deps.interpreter,
        settingPath: () => this.settings.pythonPath,
        log: (m) => log.info(m),
      });
    } catch (err) {
      const message = err instanceof Error ? err.message : String(err);
      log.error(message);
      status.setState('failed', message);
      this.starting = undefined;
      void this.offerFix(message, err instanceof InterpreterError);
      return undefined;
    }
    log.info(`server interpreter: ${this.interpreter.python} (${this.interpreter.source})`);
    status.setState('starting', `${this.interpreter.python} -m ascendopt serve`);
    this.indexedOnce = new Promise((resolve) => (this.markIndexed = resolve));
    const apiKey = await this.deps.context.secrets.get(API_KEY_SECRET);
    const client = this.deps.createClient({
      python: this.interpreter.python,
      env: serverEnv(process.env, apiKey, huaweiCannPath()),
      cwd: vscode.workspace.workspaceFolders?.[0]?.uri.fsPath,
      initializationOptions: initializationOptions(this.settings),
      status,
    });
    this.clientDisposables = [
      client.onNotification(Notification.indexed, (p: IndexedParams) => this.changed(() => this.onIndexed(p))),
      client.onNotification(Notification.evaluated, (p: EvaluatedParams) => this.changed(() => this.onEvaluated(p))),
      client.onNotification(Notification.suggestion, (p: SuggestionParams) => this.changed(() => void this.review.offer(p))),
      client.onNotification(Notification.episodeEnded, (p: EpisodeEndedParams) => this.changed(() => this.onEpisodeEnded(p))),
      client.onNotification(Notification.campaignEnded, (p: CampaignEndedParams) => void this.onCampaignEnded(p)),
      client.onDidChangeState((e) => {
        if (e.newState === ClientState.Running) {
          status.setState('running', `${this.interpreter?.python ?? 'python'} (${this.interpreter?.source ?? '?'})`);
        } else if (e.newState === ClientState.Stopped) {
          status.setState('stopped', 'the language server stopped; run "AscendOptimizer: Restart server"');
        } else {
          status.setState('starting');
        }
      }),
    ];
    this.client = client;
    try {
      await client.start();
    } catch (err) {
      const message = `the language server did not start: ${err instanceof Error ? err.message : String(err)}`;
      log.error(message);
      status.setState('failed', message);
      await this.dropClient();
      this.starting = undefined;
      void this.offerFix(message, true);
      return undefined;
    }
    status.setState('running', `${this.interpreter.python} (${this.interpreter.source})`);
    const commands = client.initializeResult?.capabilities.executeCommandProvider?.commands ?? [];
    void vscode.commands.executeCommand('setContext', ContextKey.miningAvailable, commands.includes(ServerCommand.mine));
    return client;
  }

  private async offerFix(message: string, settingsHelp: boolean): Promise<void> {
    const actions = settingsHelp ? ['Open settings', 'Show log', 'Restart server'] : ['Show log', 'Restart server'];
    const choice = await vscode.window.showErrorMessage(`AscendOptimizer: ${message}`, ...actions);
    if (choice === 'Open settings') {
      await vscode.commands.executeCommand('workbench.action.openSettings', 'ascendopt.server.pythonPath');
    } else if (choice === 'Show log') {
      this.deps.log.show();
    } else if (choice === 'Restart server') {
      await this.restart();
    }
  }

  private async dropClient(): Promise<void> {
    const client = this.client;
    this.client = undefined;
    for (const d of this.clientDisposables) {
      d.dispose();
    }
    this.clientDisposables = [];
    if (client) {
      try {
        await client.dispose(3000);
      } catch (err) {
        this.deps.log.warn(`stopping the server: ${String(err)}`);
      }
    }
  }

  async stop(): Promise<void> {
    const pending = this.starting;
    this.starting = undefined;
    if (pending) {
      await pending.catch(() => undefined);
    }
    await this.dropClient();
    this.deps.status.setState('stopped');
  }

  async restart(): Promise<void> {
    this.deps.log.info('restarting the language server');
    await this.stop();
    await this.start();
  }

  /** Settings changed: restart if the interpreter setting moved; the server re-reads the rest. */
  async onConfigurationChanged(e: vscode.ConfigurationChangeEvent): Promise<void> {
    if (!e.affectsConfiguration(SECTION)) {
      return;
    }
    const before = this.settings;
    const after = this.readSettings();
    this.settings = after;
    if (needsRestart(before, after)) {
      await this.restart();
    }
  }

  /** workspace/executeCommand on the server, once it runs. */
  async execute(command: string, args: unknown[]): Promise<unknown> {
    const client = this.client ?? (await this.start());
    if (!client) {
      throw new Error('the AscendOptimizer server is not running');
    }
    return client.sendRequest('workspace/executeCommand', { command, arguments: args });
  }

  private changed(handle: () => void): void {
    handle();
    this.stateChanged.fire();
  }

  /** What the sidebar shows (`ascendopt/workspaceState`); undefined while no server runs. */
  async workspaceState(): Promise<WorkspaceState | undefined> {
    const client = this.client;
    return client ? ((await client.sendRequest(WORKSPACE_STATE, {})) as WorkspaceState) : undefined;
  }

  private onIndexed(p: IndexedParams): void {
    this.operators = p.operators ?? [];
    this.markIndexed();
    this.deps.status.setOperators(this.operators.length);
    this.deps.log.info(`indexed ${this.operators.length} operator(s): ${this.operators.map((o) => o.name).join(', ')}`);
  }

  private onEvaluated(p: EvaluatedParams): void {
    const label = p.action === 'profile' ? 'Profile' : 'Verify';
    this.deps.status.setLastResult(`${label}: ${p.verdict}`);
    this.deps.log.info(`${label} ${p.operator}: ${p.verdict}`);
    if (p.correct) {
      void vscode.window.showInformationMessage(`${label}: ${p.verdict}`);
    } else {
      void vscode.window.showWarningMessage(`${label}: ${p.verdict}`, 'Show problems').then((choice) => {
        if (choice) {
          void vscode.commands.executeCommand('workbench.actions.view.problems');
        }
      });
    }
  }

  /** The server words the outcome; an end without a suggestion is shown here, with its report. */
  private onEpisodeEnded(p: EpisodeEndedParams): void {
    const how = p.cancelled ? 'cancelled' : 'ended';
    this.deps.log.info(`episode ${p.episode} of ${p.operator} ${how}: ${p.message}`);
    for (const line of p.outcome?.details ?? []) {
      this.deps.log.info(`  ${line}`);
    }
    this.deps.status.setLastResult(`${p.operator}: ${p.outcome?.title ?? p.message}`);
    if (p.suggestion) {
      return; // the suggestion's own notification offers Review / Accept / Reject
    }
    const text = `${p.operator}: ${p.outcome?.headline ?? p.message}`;
    const show = p.outcome?.status === 'failed' ? vscode.window.showWarningMessage : vscode.window.showInformationMessage;
    void Promise.resolve(show(text, 'Show report')).then((choice) => {
      if (choice) {
        void this.showReport(p.episode);
      }
    });
  }

  /** The report of an episode (by id), or of the newest episode of the operator the user means. */
  async showReport(arg?: unknown): Promise<boolean> {
    if (typeof arg === 'string') {
      return this.reports.show({ episode: arg });
    }
    const target = await this.pickTarget(arg instanceof vscode.Uri ? arg : undefined);
    return target ? this.reports.show(target as unknown as Record<string, unknown>) : false;
  }

  /** The operator a command means (clicked file, active editor, only operator, or a pick). */
  async pickTarget(clicked?: vscode.Uri): Promise<Target | undefined> {
    const active = vscode.window.activeTextEditor?.document.uri;
    const find = () => targetFor(clicked instanceof vscode.Uri ? clicked : undefined, active, this.operators);
    let target = find();
    if (!target && this.operators.length === 0) {
      // Right after start the index may not be in yet: give it a moment before saying "none".
      await Promise.race([this.indexedOnce, new Promise((r) => setTimeout(r, this.deps.indexWaitMs ?? INDEX_WAIT_MS))]);
      target = find();
    }
    if (target) {
      return target;
    }
    if (this.operators.length === 0) {
      void vscode.window.showWarningMessage(
        'AscendOptimizer: no AscendC operator found in this workspace (a folder with op_kernel/ and op_host/, or an ascendopt.toml).',
      );
      return undefined;
    }
    const pick = await vscode.window.showQuickPick(operatorPicks(this.operators), { placeHolder: 'Which operator?' });
    return pick?.target;
  }

  /** Optimize / Tune tiling / Verify / Profile / Mine on the operator the user means. */
  async runOperatorCommand(serverCommand: string, clicked?: vscode.Uri): Promise<unknown> {
    if (!(this.client ?? (await this.start()))) {
      return undefined;
    }
    const target = await this.pickTarget(clicked);
    if (!target) {
      return undefined;
    }
    this.deps.log.info(`${serverCommand} ${JSON.stringify(target)}`);
    try {
      const result = await this.execute(serverCommand, [target]);
      this.deps.log.info(`${serverCommand} → ${JSON.stringify(result)}`);
      return result;
    } catch (err) {
      const message = err instanceof Error ? err.message : String(err);
      this.deps.log.error(`${serverCommand} failed: ${message}`);
      void vscode.window.showErrorMessage(`AscendOptimizer: ${message}`);
      return undefined;
    }
  }

  /** "Run a campaign over the workspace": every operator, one episode each at the budget setting; the
   * server shows its progress (operators done, evaluations, best, ETA) with Cancel, and says at the
   * end where the report is. */
  async runCampaign(): Promise<void> {
    if (!(this.client ?? (await this.start()))) return;
    try {
      const result = (await this.execute(ServerCommand.runCampaign, [{}])) as { status: string; message?: string; campaign?: string };
      if (result.status !== 'started') void vscode.window.showWarningMessage(`AscendOptimizer: ${result.message ?? result.status}`);
    } catch (err) {
      void vscode.window.showErrorMessage(`AscendOptimizer: ${err instanceof Error ? err.message : String(err)}`);
    }
  }

  /** A campaign ended: its summary, and its report opened on request (a self-contained HTML page). */
  async onCampaignEnded(p: CampaignEndedParams): Promise<void> {
    this.deps.log.info(`campaign ${p.campaign} ended: ${p.summary.join('; ')} — ${p.report}`);
    const open = 'Open report';
    const pick = await vscode.window.showInformationMessage(`AscendOptimizer: campaign ${p.campaign}: ${p.summary.join('; ')}`, open);
    if (pick === open) await vscode.env.openExternal(vscode.Uri.file(p.report));
  }

  /** "Resume an interrupted episode": the sidebar's episode item, or a pick among the workspace's
   * interrupted and cancelled episodes; the server continues it as `optimize --resume` does. */
  async resumeEpisode(arg?: unknown): Promise<void> {
    let id = typeof arg === 'string' ? arg : (arg as { episode?: { id?: string } } | undefined)?.episode?.id;
    if (!id) {
      const state = await this.workspaceState();
      const open = (state?.episodes ?? []).filter((e) => !e.ended || e.cancelled);
      if (open.length === 0) {
        void vscode.window.showInformationMessage('AscendOptimizer: no interrupted episode in this workspace.');
        return;
      }
      const pick = await vscode.window.showQuickPick(
        open.map((e) => ({ label: e.id, description: `${e.operator} · ${e.evaluations} evaluations` })),
        { placeHolder: 'Episode to resume' },
      );
      id = pick?.label;
    }
    if (id) await this.execute(ServerCommand.resumeEpisode, [{ episode: id }]);
  }

  /** "Write a starting spec" (`ascendopt init-spec`): the server drafts, pre-checks and writes it,
   * then opens it; an existing spec is overwritten only when the user says so. */
  async initSpec(clicked?: vscode.Uri): Promise<void> {
    const result = (await this.runOperatorCommand(ServerCommand.initSpec, clicked)) as InitSpecResult | undefined;
    if (result?.status === 'exists') {
      const overwrite = 'Overwrite';
      const pick = await vscode.window.showWarningMessage(`AscendOptimizer: ${result.message ?? 'the spec exists'}.`, overwrite);
      if (pick === overwrite) {
        const again = (await this.execute(ServerCommand.initSpec, [{ operatorRoot: result.operatorRoot, name: result.name }, { force: true }])) as InitSpecResult;
        if (again.status !== 'ok') void vscode.window.showErrorMessage(`AscendOptimizer: ${again.message ?? 'the spec was not written'}`);
      }
    } else if (result?.status === 'error') {
      void vscode.window.showErrorMessage(`AscendOptimizer: ${result.message ?? 'the spec was not written'}`);
    }
  }

  async showExperience(): Promise<void> {
    const active = vscode.window.activeTextEditor?.document.uri;
    const arg = active?.scheme === 'file' ? { uri: active.toString() } : {};
    let result: ExperienceResult;
    try {
      result = ((await this.execute(ServerCommand.showExperience, [arg])) as ExperienceResult | null) ?? { lessons: [] };
    } catch (err) {
      void vscode.window.showErrorMessage(`AscendOptimizer: ${err instanceof Error ? err.message : String(err)}`);
      return;
    }
    this.experienceText = renderExperience(result);
    const uri = vscode.Uri.from({ scheme: Scheme.experience, path: '/experience-bank.md' });
    this.experienceChanged.fire(uri);
    const doc = await vscode.workspace.openTextDocument(uri);
    await vscode.window.showTextDocument(doc, { preview: true });
  }

  /** The provider of the experience document (and of the whole-profile pages). */
  experienceProvider(): vscode.TextDocumentContentProvider {
    return {
      onDidChange: this.experienceChanged.event,
      provideTextDocumentContent: (uri: vscode.Uri) => this.profileTexts.get(uri.path) ?? this.experienceText,
    };
  }

  /** The hover's "more" link: the operator's whole last profile as a rendered Markdown preview. */
  async openProfile(arg: unknown): Promise<void> {
    const result = (await this.execute(ServerCommand.showProfile, [arg])) as { status: string; markdown?: string; message?: string } | null;
    if (!result || result.status !== 'ok' || result.markdown === undefined) {
      void vscode.window.showWarningMessage(`AscendOptimizer: ${result?.message ?? 'no profile to show'}`);
      return;
    }
    const name = (arg as { name?: string } | undefined)?.name ?? 'operator';
    const uri = vscode.Uri.from({ scheme: Scheme.experience, path: `/profile/${name}.md` });
    this.profileTexts.set(uri.path, result.markdown);
    this.experienceChanged.fire(uri);
    await vscode.commands.executeCommand('markdown.showPreview', uri);
  }

  async setApiKey(): Promise<void> {
    const current = await this.deps.context.secrets.get(API_KEY_SECRET);
    const key = await vscode.window.showInputBox({
      title: 'AscendOptimizer: LLM API key',
      prompt: current
        ? 'A key is set. Enter a new one, or leave empty and press Enter to remove it.'
        : 'The key of your OpenAI-compatible endpoint (ascendopt.llm.baseUrl). Kept in VS Code secret storage, never in settings.',
      password: true,
      ignoreFocusOut: true,
      placeHolder: 'sk-…',
    });
    if (key === undefined) {
      return;
    }
    if (key.trim() === '') {
      if (current) {
        await this.deps.context.secrets.delete(API_KEY_SECRET);
        void vscode.window.showInformationMessage('AscendOptimizer: API key removed; restarting the server.');
        await this.restart();
      }
      return;
    }
    await this.deps.context.secrets.store(API_KEY_SECRET, key.trim());
    void vscode.window.showInformationMessage('AscendOptimizer: API key saved in secret storage; restarting the server to use it.');
    await this.restart();
  }

  async selectBackend(): Promise<void> {
    const settings = this.readSettings();
    const items = backendChoices(settings).map((c) => ({ ...c, picked: c.label === settings.backend }));
    items.push({ label: 'ssh:…', description: 'another host from ~/.ssh/config', picked: false });
    const pick = await vscode.window.showQuickPick(items, { placeHolder: `Backend (now ${settings.backend})` });
    if (!pick) {
      return;
    }
    let backend = pick.label;
    if (backend === 'ssh:…') {
      const host = await vscode.window.showInputBox({ prompt: 'SSH host alias (as in ~/.ssh/config)' });
      if (!host) {
        return;
      }
      backend = `ssh:${host.trim()}`;
    }
    const target = vscode.workspace.workspaceFolders?.length ? vscode.ConfigurationTarget.Workspace : vscode.ConfigurationTarget.Global;
    await vscode.workspace.getConfiguration(SECTION).update('backend', backend, target);
  }

  /** Register the extension's commands. */
  registerCommands(): vscode.Disposable[] {
    const op = (server: string) => (uri?: vscode.Uri) => this.runOperatorCommand(server, uri);
    return [
      vscode.commands.registerCommand(ClientCommand.optimize, op(ServerCommand.optimize)),
      vscode.commands.registerCommand(ClientCommand.tuneTiling, op(ServerCommand.tuneTiling)),
      vscode.commands.registerCommand(ClientCommand.verify, op(ServerCommand.verify)),
      vscode.commands.registerCommand(ClientCommand.profile, op(ServerCommand.profile)),
      vscode.commands.registerCommand(ClientCommand.mine, op(ServerCommand.mine)),
      vscode.commands.registerCommand(ClientCommand.showExperience, () => this.showExperience()),
      vscode.commands.registerCommand(ClientCommand.restart, () => this.restart()),
      vscode.commands.registerCommand(ClientCommand.setApiKey, () => this.setApiKey()),
      vscode.commands.registerCommand(ClientCommand.selectBackend, () => this.selectBackend()),
      vscode.commands.registerCommand(ClientCommand.showOutput, () => this.deps.log.show()),
      vscode.commands.registerCommand(ClientCommand.openProfile, (arg?: unknown) => this.openProfile(arg)),
      vscode.commands.registerCommand(ClientCommand.initSpec, (uri?: vscode.Uri) => this.initSpec(uri)),
      vscode.commands.registerCommand(ClientCommand.runCampaign, () => this.runCampaign()),
      vscode.commands.registerCommand(ClientCommand.resumeEpisode, (arg?: unknown) => this.resumeEpisode(arg)),
      vscode.commands.registerCommand(ClientCommand.openTemplate, () => openTemplate((command, args) => this.execute(command, args))),
      vscode.commands.registerCommand(ClientCommand.review, (id?: unknown) => this.review.review(typeof id === 'string' ? id : undefined)),
      vscode.commands.registerCommand(ClientCommand.accept, (resource?: unknown) => this.review.accept(this.review.idFrom(resource))),
      vscode.commands.registerCommand(ClientCommand.reject, (resource?: unknown) => this.review.reject(this.review.idFrom(resource))),
      vscode.commands.registerCommand(ClientCommand.showReport, (arg?: unknown) => this.showReport(arg)),
    ];
  }

  dispose(): void {
    void this.stop();
    this.reports.dispose();
    this.experienceChanged.dispose();
    this.stateChanged.dispose();
  }
}

/** Where Huawei's Ascend C Toolkits extension is installed: the CANN folder it is configured with. */
function huaweiCannPath(): string | undefined {
  const ext = vscode.extensions.getExtension(HUAWEI_EXTENSION);
  return ext ? cannPathFrom(ext.packageJSON, (key) => vscode.workspace.getConfiguration().get(key)) : undefined;
}
