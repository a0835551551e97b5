/** "Open an operator template…": pick one of the shipped templates (one line each), copy it into a
 * folder the user chooses, and open its kernel. The walkthrough's first step. */

import * as vscode from 'vscode';

export const LIST_TEMPLATES = 'ascendopt.listTemplates';
export const COPY_TEMPLATE = 'ascendopt.copyTemplate';

export interface TemplateInfo {
  name: string;
  summary: string;
}

type Execute = (command: string, args: unknown[]) => Promise<unknown>;

export async function openTemplate(execute: Execute): Promise<string | undefined> {
  const templates = ((await execute(LIST_TEMPLATES, [])) as TemplateInfo[] | null) ?? [];
  const pick = await vscode.window.showQuickPick(
    templates.map((t) => ({ label: t.name, description: t.summary })),
    { placeHolder: 'Operator template to copy into a folder of yours', matchOnDescription: true },
  );
  if (!pick) {
    return undefined;
  }
  const folders = await vscode.window.showOpenDialog({
    canSelectFolders: true,
    canSelectFiles: false,
    canSelectMany: false,
    openLabel: `Copy ${pick.label} here`,
    defaultUri: vscode.workspace.workspaceFolders?.[0]?.uri,
  });
  const to = folders?.[0];
  if (!to) {
    return undefined;
  }
  const result = (await execute(COPY_TEMPLATE, [{ name: pick.label, to: to.fsPath }])) as { status: string; path?: string; message?: string };
  if (result.status !== 'ok' || !result.path) {
    void vscode.window.showErrorMessage(`AscendOptimizer: ${result.message ?? 'the template was not copied'}`);
    return undefined;
  }
  const root = vscode.Uri.file(result.path);
  const inside = vscode.workspace.workspaceFolders?.some((f) => root.fsPath.startsWith(f.uri.fsPath + '/'));
  if (inside) {
    const kernel = vscode.Uri.joinPath(root, 'op_kernel', `${pick.label}.cpp`);
    await vscode.window.showTextDocument(kernel);
  } else {
    // Outside the open folders: open it as the workspace (the server indexes it on start).
    await vscode.commands.executeCommand('vscode.openFolder', root, { forceNewWindow: false });
  }
  return result.path;
}
