/** Which operator a palette or context-menu command means. */

import type { IndexedOperator, Target } from './protocol';

const OPERATOR_FILE = /[\\/]op_(kernel|host)[\\/][^\\/]+\.(cpp|cc|h|hpp)$/;

/** An AscendC operator file: a source under op_kernel/ or op_host/, or an ascendopt.toml. */
export function isOperatorFile(fsPath: string): boolean {
  return OPERATOR_FILE.test(fsPath) || /(^|[\\/])ascendopt\.toml$/.test(fsPath);
}

export interface UriLike {
  scheme: string;
  fsPath: string;
  toString(): string;
}

function inside(fsPath: string, root: string): boolean {
  const r = root.replace(/[\\/]+$/, '');
  return fsPath === r || fsPath.startsWith(r + '/') || fsPath.startsWith(r + '\\');
}

/**
 * The target for a command: the clicked resource, else the active editor's file when it belongs to
 * an indexed operator (or looks like an operator file), else undefined (the caller asks the user to
 * pick one of `operators`).
 */
export function targetFor(
  clicked: UriLike | undefined,
  active: UriLike | undefined,
  operators: readonly IndexedOperator[],
): Target | undefined {
  for (const uri of [clicked, active]) {
    if (!uri || uri.scheme !== 'file') {
      continue;
    }
    if (isOperatorFile(uri.fsPath) || operators.some((op) => inside(uri.fsPath, op.root))) {
      return { uri: uri.toString() };
    }
  }
  if (operators.length === 1) {
    const only = operators[0]!;
    return { operatorRoot: only.root, name: only.name };
  }
  return undefined;
}

/** Quick-pick items for choosing among indexed operators. */
export function operatorPicks(operators: readonly IndexedOperator[]): { label: string; description: string; target: Target }[] {
  return operators.map((op) => ({
    label: op.name,
    description: op.root,
    target: { operatorRoot: op.root, name: op.name },
  }));
}
