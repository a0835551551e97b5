/**
 * What the language status item shows: the server's state, the operators found, and the episodes
 * (and other work-done progress) running now. Progress is drawn by progress.ts, since
 * vscode-languageclient's own handler for each token is the only one it allows.
 */

export type ServerState = 'stopped' | 'setup' | 'starting' | 'running' | 'failed';

export interface Running {
  token: string;
  title: string;
  message: string;
  percentage?: number;
}

export interface StatusView {
  text: string;
  detail: string;
  busy: boolean;
  severity: 'information' | 'warning' | 'error';
}

/** The status-bar entry (as ruff's and clangd's): backend, the running episode, click for the log. */
export interface BarView {
  text: string;
  tooltip: string;
}

const BAR_MESSAGE_MAX = 48;

export class StatusModel {
  backend = 'cpu-twin';
  state: ServerState = 'stopped';
  stateDetail = '';
  operators = 0;
  lastResult = '';
  private readonly running = new Map<string, Running>();
  private readonly listeners: (() => void)[] = [];

  onChange(listener: () => void): void {
    this.listeners.push(listener);
  }

  private changed(): void {
    for (const l of this.listeners) {
      l();
    }
  }

  setState(state: ServerState, detail = ''): void {
    this.state = state;
    this.stateDetail = detail;
    if (state !== 'running') {
      this.running.clear();
    }
    this.changed();
  }

  setBackend(backend: string): void {
    this.backend = backend;
    this.changed();
  }

  setOperators(count: number): void {
    this.operators = count;
    this.changed();
  }

  setLastResult(text: string): void {
    this.lastResult = text;
    this.changed();
  }

  begin(token: string, title: string, message = '', percentage?: number): void {
    this.running.set(token, { token, title, message, percentage });
    this.changed();
  }

  report(token: string, message?: string, percentage?: number): void {
    const r = this.running.get(token);
    if (!r) {
      return;
    }
    if (message !== undefined) {
      r.message = message;
    }
    if (percentage !== undefined) {
      r.percentage = percentage;
    }
    this.changed();
  }

  end(token: string, message?: string): void {
    const r = this.running.get(token);
    if (!r) {
      return;
    }
    this.running.delete(token);
    if (message) {
      this.lastResult = `${r.title}: ${message}`;
    }
    this.changed();
  }

  jobs(): Running[] {
    return [...this.running.values()];
  }

  barView(): BarView {
    const jobs = this.jobs();
    const server = this.view();
    if (this.state === 'running' && jobs.length > 0) {
      const first = jobs[0]!;
      const name = first.title.replace(/^Optimize /, '');
      const pct = first.percentage !== undefined ? ` ${Math.round(first.percentage)}%` : '';
      let message = first.message.split(' · ').slice(0, 2).join(' · ');
      if (message.length > BAR_MESSAGE_MAX) {
        message = message.slice(0, BAR_MESSAGE_MAX - 1) + '…';
      }
      const more = jobs.length > 1 ? ` (+${jobs.length - 1})` : '';
      return {
        text: `$(sync~spin) ${name}${pct}${message ? ' · ' + message : ''}${more}`,
        tooltip: `AscendOptimizer on ${this.backend}\n${server.detail}\nClick for the log`,
      };
    }
    const icon = this.state === 'failed' ? '$(error)' : this.state === 'running' ? '$(zap)' : '$(loading~spin)';
    const text = this.state === 'running' || this.state === 'failed' ? `${icon} ${this.backend}` : `${icon} AscendOpt`;
    return { text, tooltip: `AscendOptimizer: ${server.text.replace('AscendOpt: ', '')} · backend ${this.backend}\n${server.detail}\nClick for the log` };
  }

  view(): StatusView {
    const jobs = this.jobs();
    switch (this.state) {
      case 'setup':
        return { text: 'AscendOpt: setting up', detail: this.stateDetail || 'creating the server environment', busy: true, severity: 'information' };
      case 'starting':
        return { text: 'AscendOpt: starting', detail: this.stateDetail, busy: true, severity: 'information' };
      case 'stopped':
        return { text: 'AscendOpt: stopped', detail: this.stateDetail || 'the language server is not running', busy: false, severity: 'warning' };
      case 'failed':
        return { text: 'AscendOpt: failed', detail: this.stateDetail || 'see the output channel', busy: false, severity: 'error' };
      case 'running':
        break;
    }
    if (jobs.length > 0) {
      const first = jobs[0]!;
      const more = jobs.length > 1 ? ` (+${jobs.length - 1})` : '';
      const text = `${first.title}${first.message ? ': ' + first.message : ''}${more}`;
      const detail = jobs.map((j) => `${j.title}${j.message ? ' — ' + j.message : ''}`).join('; ');
      return { text, detail, busy: true, severity: 'information' };
    }
    const ops = `${this.operators} operator${this.operators === 1 ? '' : 's'}`;
    return { text: `AscendOpt: ${ops}`, detail: this.lastResult || this.stateDetail, busy: false, severity: 'information' };
  }
}
