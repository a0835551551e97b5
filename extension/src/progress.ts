/**
 * The server's work-done progress (episodes, Verify, Profile) as a cancellable notification, and in
 * the status model. vscode-languageclient shows server-initiated progress in the status bar only
 * (ProgressLocation.Window, which has no Cancel), so the client takes over
 * `window/workDoneProgress/create` (ProgressNotificationFeature in client.ts) and draws the
 * progress here; Cancel sends `window/workDoneProgress/cancel`, which the server turns into the
 * job's cancel event.
 */

import * as vscode from 'vscode';
import type { StatusModel } from './status';

export type ProgressToken = string | number;

export interface ProgressValue {
  kind?: string;
  title?: string;
  message?: string;
  percentage?: number;
  cancellable?: boolean;
}

interface Part {
  title: string;
  reported: number;
  progress?: vscode.Progress<{ message?: string; increment?: number }>;
  resolve?: () => void;
  pending: ProgressValue[]; // values that arrived before the notification was drawn
  ended: boolean;
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null;
}

export class ProgressNotifications {
  private readonly parts = new Map<string, Part>();

  constructor(
    private readonly status: StatusModel,
    private readonly sendCancel: (token: ProgressToken) => void,
  ) {}

  /** One `$/progress` value for `token` (begin, report or end). */
  handle(token: ProgressToken, value: unknown): void {
    if (!isObject(value)) {
      return;
    }
    const v = value as ProgressValue;
    const key = String(token);
    if (v.kind === 'begin') {
      this.begin(token, key, v);
    } else if (v.kind === 'report') {
      this.status.report(key, v.message, v.percentage);
      const part = this.parts.get(key);
      if (part) {
        this.report(part, v);
      }
    } else if (v.kind === 'end') {
      this.status.end(key, v.message);
      const part = this.parts.get(key);
      if (part) {
        part.ended = true;
        part.resolve?.();
        this.parts.delete(key);
      }
    }
  }

  private begin(token: ProgressToken, key: string, v: ProgressValue): void {
    const title = v.title ?? 'AscendOptimizer';
    this.status.begin(key, title, v.message ?? '', v.percentage);
    const part: Part = { title, reported: 0, pending: [v], ended: false };
    this.parts.set(key, part);
    void vscode.window.withProgress(
      { location: vscode.ProgressLocation.Notification, title, cancellable: v.cancellable ?? false },
      (progress, cancel) =>
        new Promise<void>((resolve) => {
          if (part.ended) {
            resolve();
            return;
          }
          part.progress = progress;
          part.resolve = resolve;
          cancel.onCancellationRequested(() => this.sendCancel(token));
          for (const p of part.pending.splice(0)) {
            this.report(part, p);
          }
        }),
    );
  }

  private report(part: Part, v: ProgressValue): void {
    if (!part.progress) {
      part.pending.push(v);
      return;
    }
    const step: { message?: string; increment?: number } = {};
    if (typeof v.message === 'string') {
      step.message = v.message;
    }
    if (typeof v.percentage === 'number') {
      const pct = Math.max(0, Math.min(100, v.percentage));
      step.increment = Math.max(0, pct - part.reported);
      part.reported += step.increment;
    }
    if (step.message !== undefined || step.increment) {
      part.progress.report(step);
    }
  }

  /** The server stopped: close every notification. */
  clear(): void {
    for (const [key, part] of this.parts) {
      part.ended = true;
      part.resolve?.();
      this.status.end(key);
    }
    this.parts.clear();
  }
}
