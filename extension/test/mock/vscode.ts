/**
 * A small stand-in for the `vscode` module, enough for the extension's logic: the unit tests are
 * bundled with `vscode` aliased to this file (scripts/build.mjs --tests). `mock` lets a test answer
 * prompts and see what the extension did.
 */

import * as nodePath from 'node:path';

type Listener<T> = (e: T) => unknown;

export class Disposable {
  constructor(private readonly fn: () => void = () => undefined) {}
  dispose(): void {
    this.fn();
  }
  static from(...items: { dispose(): unknown }[]): Disposable {
    return new Disposable(() => items.forEach((i) => i.dispose()));
  }
}

export class EventEmitter<T> {
  private listeners: Listener<T>[] = [];
  readonly event = (listener: Listener<T>): Disposable => {
    this.listeners.push(listener);
    return new Disposable(() => {
      this.listeners = this.listeners.filter((l) => l !== listener);
    });
  };
  fire(e: T): void {
    for (const l of [...this.listeners]) {
      l(e);
    }
  }
  dispose(): void {
    this.listeners = [];
  }
}

interface UriParts {
  scheme: string;
  authority?: string;
  path?: string;
  query?: string;
  fragment?: string;
}

export class Uri {
  readonly scheme: string;
  readonly authority: string;
  readonly path: string;
  readonly query: string;
  readonly fragment: string;

  private constructor(parts: UriParts) {
    this.scheme = parts.scheme;
    this.authority = parts.authority ?? '';
    this.path = parts.path ?? '';
    this.query = parts.query ?? '';
    this.fragment = parts.fragment ?? '';
  }

  static from(parts: UriParts): Uri {
    return new Uri(parts);
  }

  static file(fsPath: string): Uri {
    return new Uri({ scheme: 'file', path: fsPath });
  }

  static parse(value: string): Uri {
    const m = /^([a-zA-Z][\w+.-]*):(\/\/([^/?#]*))?([^?#]*)(\?([^#]*))?(#(.*))?$/.exec(value);
    if (!m) {
      throw new Error(`not a URI: ${value}`);
    }
    return new Uri({
      scheme: m[1]!,
      authority: m[3] ?? '',
      path: decodeURIComponent(m[4] ?? ''),
      query: m[6] ?? '',
      fragment: m[8] ?? '',
    });
  }

  static joinPath(base: Uri, ...segments: string[]): Uri {
    return base.with({ path: nodePath.posix.join(base.path, ...segments) });
  }

  get fsPath(): string {
    return this.path;
  }

  with(change: Partial<UriParts>): Uri {
    return new Uri({
      scheme: change.scheme ?? this.scheme,
      authority: change.authority ?? this.authority,
      path: change.path ?? this.path,
      query: change.query ?? this.query,
      fragment: change.fragment ?? this.fragment,
    });
  }

  toString(): string {
    const auth = this.scheme === 'file' || this.authority ? `//${this.authority}` : '';
    const path = this.path.split('/').map(encodeURIComponent).join('/');
    return `${this.scheme}:${auth}${path}${this.query ? '?' + this.query : ''}${this.fragment ? '#' + this.fragment : ''}`;
  }

  toJSON(): string {
    return this.toString();
  }
}

export class TabInputText {
  constructor(readonly uri: Uri) {}
}

export class TabInputTextDiff {
  constructor(
    readonly original: Uri,
    readonly modified: Uri,
  ) {}
}

export interface MockTab {
  label: string;
  input: unknown;
  group: MockTabGroup;
}

export interface MockTabGroup {
  tabs: MockTab[];
  activeTab: MockTab | undefined;
}

export enum ProgressLocation {
  SourceControl = 1,
  Window = 10,
  Notification = 15,
}

export enum ConfigurationTarget {
  Global = 1,
  Workspace = 2,
  WorkspaceFolder = 3,
}

export enum ViewColumn {
  Active = -1,
  Beside = -2,
  One = 1,
}

/** A webview panel as `window.createWebviewPanel` makes it; `mock.webviews` lists them. */
export interface MockWebview {
  viewType: string;
  title: string;
  options: Record<string, unknown>;
  webview: { html: string };
  revealed: number;
  disposed: boolean;
  reveal(): void;
  onDidDispose(listener: () => void): Disposable;
  dispose(): void;
}

export enum StatusBarAlignment {
  Left = 1,
  Right = 2,
}

export interface MockProgress {
  options: { location: number; title?: string; cancellable?: boolean };
  reports: { message?: string; increment?: number }[];
  done: boolean;
  cancel(): void;
}

export enum LanguageStatusSeverity {
  Information = 0,
  Warning = 1,
  Error = 2,
}

export interface Message {
  level: 'info' | 'warning' | 'error';
  text: string;
  items: string[];
}

type Answer = string | undefined | ((message: Message) => string | undefined);

/** What a test controls and reads. */
export const mock = {
  messages: [] as Message[],
  /** Answers to show*Message, in order; default: dismissed (undefined). */
  answers: [] as Answer[],
  quickPickAnswers: [] as ((items: readonly unknown[]) => unknown)[],
  inputAnswers: [] as (string | undefined)[],
  openDialogAnswers: [] as (Uri | undefined)[],
  executed: [] as { command: string; args: unknown[] }[],
  commands: new Map<string, (...args: unknown[]) => unknown>(),
  context: new Map<string, unknown>(),
  config: new Map<string, unknown>(),
  configUpdates: [] as { key: string; value: unknown; target: unknown }[],
  files: new Map<string, string>(), // fsPath → text
  groups: [] as MockTabGroup[],
  closed: [] as MockTab[],
  opened: [] as { uri: string; text: string }[],
  providers: new Map<string, { provideTextDocumentContent(uri: Uri): string }>(),
  statusItems: [] as Record<string, unknown>[],
  statusBarItems: [] as Record<string, unknown>[],
  progress: [] as MockProgress[],
  webviews: [] as MockWebview[],
  activeEditorUri: undefined as Uri | undefined,
  workspaceFolders: undefined as { uri: Uri; name: string; index: number }[] | undefined,

  reset(): void {
    this.messages = [];
    this.answers = [];
    this.quickPickAnswers = [];
    this.inputAnswers = [];
    this.openDialogAnswers = [];
    this.executed = [];
    this.commands.clear();
    this.context.clear();
    this.config.clear();
    this.configUpdates = [];
    this.files.clear();
    this.groups = [{ tabs: [], activeTab: undefined }];
    this.closed = [];
    this.opened = [];
    this.providers.clear();
    this.statusItems = [];
    this.statusBarItems = [];
    this.progress = [];
    this.webviews = [];
    this.activeEditorUri = undefined;
    this.workspaceFolders = undefined;
  },

  /** Open a diff tab, as `vscode.diff` does in VS Code. */
  openDiff(left: Uri, right: Uri, label: string): MockTab {
    const group = this.groups[0]!;
    const tab: MockTab = { label, input: new TabInputTextDiff(left, right), group };
    group.tabs.push(tab);
    group.activeTab = tab;
    return tab;
  },

  /** Wait for pending promise callbacks (fire-and-forget work in the code under test). */
  async settle(): Promise<void> {
    for (let i = 0; i < 20; i++) {
      await new Promise((r) => setImmediate(r));
    }
  },
};
mock.reset();

function show(level: Message['level']) {
  return async (text: string, ...rest: unknown[]): Promise<string | undefined> => {
    const items = rest.filter((r): r is string => typeof r === 'string');
    const message = { level, text, items };
    mock.messages.push(message);
    const answer = mock.answers.shift();
    return typeof answer === 'function' ? answer(message) : answer;
  };
}

export const commands = {
  registerCommand(id: string, handler: (...args: unknown[]) => unknown): Disposable {
    if (mock.commands.has(id)) {
      throw new Error(`command '${id}' already exists`);
    }
    mock.commands.set(id, handler);
    return new Disposable(() => mock.commands.delete(id));
  },
  async executeCommand(command: string, ...args: unknown[]): Promise<unknown> {
    mock.executed.push({ command, args });
    if (command === 'setContext') {
      mock.context.set(args[0] as string, args[1]);
      return undefined;
    }
    if (command === 'vscode.diff') {
      mock.openDiff(args[0] as Uri, args[1] as Uri, args[2] as string);
      return undefined;
    }
    if (command === 'vscode.changes') {
      // The multi-diff editor: one tab, titled; its input is no type the API exposes.
      const group = mock.groups[0]!;
      const files = (args[1] as unknown[]).length;
      const tab: MockTab = { label: `${args[0] as string} (${files} file${files === 1 ? '' : 's'})`, input: { resources: args[1] }, group };
      group.tabs.push(tab);
      group.activeTab = tab;
      return undefined;
    }
    const handler = mock.commands.get(command);
    return handler ? handler(...args) : undefined;
  },
};

export class ThemeIcon {
  constructor(readonly id: string) {}
}

export enum TreeItemCollapsibleState {
  None = 0,
  Collapsed = 1,
  Expanded = 2,
}

export class TreeItem {
  description?: string;
  tooltip?: string;
  iconPath?: ThemeIcon;
  contextValue?: string;
  resourceUri?: Uri;
  command?: { title: string; command: string; arguments?: unknown[] };
  constructor(
    readonly label: string,
    readonly collapsibleState: TreeItemCollapsibleState = TreeItemCollapsibleState.None,
  ) {}
}

export const window = {
  showInformationMessage: show('info'),
  showWarningMessage: show('warning'),
  showErrorMessage: show('error'),
  async showQuickPick(items: readonly unknown[]): Promise<unknown> {
    const answer = mock.quickPickAnswers.shift();
    return answer ? answer(items) : undefined;
  },
  async showInputBox(): Promise<string | undefined> {
    return mock.inputAnswers.shift();
  },
  async showOpenDialog(): Promise<Uri[] | undefined> {
    const answer = mock.openDialogAnswers.shift();
    return answer ? [answer] : undefined;
  },
  get activeTextEditor(): { document: { uri: Uri } } | undefined {
    return mock.activeEditorUri ? { document: { uri: mock.activeEditorUri } } : undefined;
  },
  async showTextDocument(doc: { uri: Uri; getText(): string } | Uri): Promise<void> {
    if (doc instanceof Uri) {
      mock.opened.push({ uri: doc.toString(), text: mock.files.get(doc.fsPath) ?? '' });
      return;
    }
    mock.opened.push({ uri: doc.uri.toString(), text: doc.getText() });
  },
  tabGroups: {
    get all(): MockTabGroup[] {
      return mock.groups;
    },
    get activeTabGroup(): MockTabGroup {
      return mock.groups[0]!;
    },
    async close(tabs: MockTab[] | MockTab): Promise<boolean> {
      for (const tab of Array.isArray(tabs) ? tabs : [tabs]) {
        tab.group.tabs = tab.group.tabs.filter((t) => t !== tab);
        if (tab.group.activeTab === tab) {
          tab.group.activeTab = tab.group.tabs[tab.group.tabs.length - 1];
        }
        mock.closed.push(tab);
      }
      return true;
    },
  },
  createOutputChannel(name: string) {
    const lines: string[] = [];
    return {
      name,
      lines,
      info: (m: string) => lines.push(`info ${m}`),
      warn: (m: string) => lines.push(`warn ${m}`),
      error: (m: string) => lines.push(`error ${m}`),
      show: () => undefined,
      dispose: () => undefined,
    };
  },
  async withProgress<T>(
    options: MockProgress['options'],
    task: (p: { report(v: { message?: string; increment?: number }): void }, token: unknown) => Promise<T>,
  ): Promise<T> {
    const cancelled = new EventEmitter<void>();
    const entry: MockProgress = { options, reports: [], done: false, cancel: () => cancelled.fire() };
    mock.progress.push(entry);
    const token = { isCancellationRequested: false, onCancellationRequested: cancelled.event };
    try {
      return await task({ report: (v) => entry.reports.push(v) }, token);
    } finally {
      entry.done = true;
    }
  },
  createWebviewPanel(viewType: string, title: string, _column: unknown, options: Record<string, unknown> = {}): MockWebview {
    const disposed = new EventEmitter<void>();
    const panel: MockWebview = {
      viewType,
      title,
      options,
      webview: { html: '' },
      revealed: 0,
      disposed: false,
      reveal: () => (panel.revealed += 1),
      onDidDispose: (listener) => disposed.event(listener),
      dispose: () => {
        panel.disposed = true;
        disposed.fire();
      },
    };
    mock.webviews.push(panel);
    return panel;
  },
  createStatusBarItem(id: string, alignment?: number, priority?: number) {
    const item: Record<string, unknown> = { id, alignment, priority, visible: false };
    item.show = () => (item.visible = true);
    item.hide = () => (item.visible = false);
    item.dispose = () => undefined;
    mock.statusBarItems.push(item);
    return item;
  },
};

export const workspace = {
  getConfiguration(section?: string) {
    const prefix = section ? section + '.' : '';
    return {
      get<T>(key: string, fallback?: T): T | undefined {
        const full = prefix + key;
        return mock.config.has(full) ? (mock.config.get(full) as T) : fallback;
      },
      async update(key: string, value: unknown, target: unknown): Promise<void> {
        mock.configUpdates.push({ key: prefix + key, value, target });
        mock.config.set(prefix + key, value);
      },
    };
  },
  get workspaceFolders() {
    return mock.workspaceFolders;
  },
  fs: {
    async readFile(uri: Uri): Promise<Uint8Array> {
      const text = mock.files.get(uri.fsPath);
      if (text === undefined) {
        throw new Error(`ENOENT ${uri.fsPath}`);
      }
      return new TextEncoder().encode(text);
    },
  },
  registerTextDocumentContentProvider(scheme: string, provider: { provideTextDocumentContent(uri: Uri): string }): Disposable {
    mock.providers.set(scheme, provider);
    return new Disposable(() => mock.providers.delete(scheme));
  },
  async openTextDocument(uri: Uri): Promise<{ uri: Uri; getText(): string }> {
    const provider = mock.providers.get(uri.scheme);
    const text = provider ? provider.provideTextDocumentContent(uri) : (mock.files.get(uri.fsPath) ?? '');
    return { uri, getText: () => text };
  },
};

export const languages = {
  createLanguageStatusItem(id: string, selector: unknown) {
    const item: Record<string, unknown> = { id, selector, dispose: () => undefined };
    mock.statusItems.push(item);
    return item;
  },
};

export const env = {
  opened: [] as string[],
  async openExternal(uri: { toString(): string }): Promise<boolean> {
    env.opened.push(uri.toString());
    return true;
  },
};

export const extensions = {
  getExtension(): undefined {
    return undefined;
  },
};
