/**
 * The extension's own Python environment: `<globalStorage>/server-env`, a venv with the `ascendopt`
 * package the .vsix carries (extension/server/*.whl), created on first use with the user's consent
 * and re-created when the bundled package changes. Its dependencies come from the user's package
 * index (pip's usual configuration applies).
 */

import * as path from 'node:path';

export interface RunResult {
  code: number | null;
  output: string;
}

export interface PrivateEnvDeps {
  storageDir: string; // context.globalStorageUri.fsPath
  bundleDir: string; // <extension>/server
  platform: NodeJS.Platform;
  listDir(dir: string): Promise<string[]>;
  readText(file: string): Promise<string | undefined>;
  writeText(file: string, text: string): Promise<void>;
  exists(file: string): Promise<boolean>;
  remove(dir: string): Promise<void>;
  mkdir(dir: string): Promise<void>;
  /** Run a command; `onLine` gets its output line by line; `signal` aborts it. */
  run(command: string, args: string[], onLine: (line: string) => void, signal?: AbortSignal): Promise<RunResult>;
  /** Candidate base interpreters to create the venv with, best first. */
  basePythons(): Promise<string[]>;
  /** Ask the user; resolves true to go ahead. */
  consent(packageFile: string): Promise<boolean>;
  /** Show progress while `work` runs; `report` updates the message; cancellable. */
  withProgress<T>(work: (report: (message: string) => void, signal: AbortSignal) => Promise<T>): Promise<T>;
  log(line: string): void;
}

export class SetupError extends Error {}

const MARKER = '.ascendopt-bundle';

export function envDir(storageDir: string): string {
  return path.join(storageDir, 'server-env');
}

export function envPython(dir: string, platform: NodeJS.Platform): string {
  return platform === 'win32' ? path.join(dir, 'Scripts', 'python.exe') : path.join(dir, 'bin', 'python');
}

/** The bundled package: the newest ascendopt wheel (else sdist) in the bundle folder. */
export async function bundledPackage(deps: Pick<PrivateEnvDeps, 'listDir' | 'bundleDir'>): Promise<string | undefined> {
  let names: string[];
  try {
    names = await deps.listDir(deps.bundleDir);
  } catch {
    return undefined;
  }
  const wheels = names.filter((n) => /^ascendopt-.+\.whl$/.test(n)).sort();
  const sdists = names.filter((n) => /^ascendopt-.+\.tar\.gz$/.test(n)).sort();
  const pick = wheels[wheels.length - 1] ?? sdists[sdists.length - 1];
  return pick ? path.join(deps.bundleDir, pick) : undefined;
}

/** Progress text from a pip output line, or undefined for lines not worth showing. */
export function pipProgress(line: string): string | undefined {
  const m = /^\s*(Collecting|Downloading|Installing collected packages:|Building wheel for|Successfully installed)\s*(.*)$/.exec(line);
  if (!m) {
    return undefined;
  }
  const rest = m[2]!.split(/\s+/)[0] ?? '';
  switch (m[1]) {
    case 'Collecting':
      return `collecting ${rest}`;
    case 'Downloading':
      return `downloading ${path.basename(rest)}`;
    case 'Building wheel for':
      return `building ${rest}`;
    case 'Successfully installed':
      return 'installed';
    default:
      return 'installing packages';
  }
}

async function firstUsablePython(deps: PrivateEnvDeps): Promise<string> {
  const probe = 'import sys, venv, ensurepip; sys.exit(0 if sys.version_info >= (3, 10) else 1)';
  for (const candidate of await deps.basePythons()) {
    try {
      const r = await deps.run(candidate, ['-c', probe], () => undefined);
      if (r.code === 0) {
        return candidate;
      }
      deps.log(`${candidate}: not Python ≥ 3.10 with venv/ensurepip`);
    } catch (err) {
      deps.log(`${candidate}: ${String(err)}`);
    }
  }
  throw new SetupError(
    'no Python 3.10 or newer with venv found (tried ' +
      (await deps.basePythons()).join(', ') +
      '). Install one (e.g. apt install python3-venv) or set ascendopt.server.pythonPath.',
  );
}

/**
 * The private environment's interpreter: reused when it was built from the same bundled package,
 * otherwise (re)created after asking. Undefined when the user declines.
 */
export async function ensurePrivateEnv(deps: PrivateEnvDeps): Promise<string | undefined> {
  const pkg = await bundledPackage(deps);
  if (!pkg) {
    throw new SetupError(`the extension carries no ascendopt package (looked in ${deps.bundleDir})`);
  }
  const dir = envDir(deps.storageDir);
  const python = envPython(dir, deps.platform);
  const stamp = path.basename(pkg);
  if ((await deps.readText(path.join(dir, MARKER)))?.trim() === stamp && (await deps.exists(python))) {
    return python;
  }
  if (!(await deps.consent(path.basename(pkg)))) {
    return undefined;
  }
  return deps.withProgress(async (report, signal) => {
    const step = async (what: string, command: string, args: string[]): Promise<void> => {
      report(what);
      deps.log(`$ ${command} ${args.join(' ')}`);
      const r = await deps.run(
        command,
        args,
        (line) => {
          deps.log(line);
          const p = pipProgress(line);
          if (p) {
            report(p);
          }
        },
        signal,
      );
      if (signal.aborted) {
        throw new SetupError('cancelled');
      }
      if (r.code !== 0) {
        throw new SetupError(`${what} failed (exit ${r.code}); see the output channel`);
      }
    };
    const base = await firstUsablePython(deps);
    await deps.mkdir(deps.storageDir);
    await deps.remove(dir);
    await step('creating the environment', base, ['-m', 'venv', dir]);
    await step('installing ascendopt', python, ['-m', 'pip', 'install', '--disable-pip-version-check', pkg]);
    await step('checking the server', python, ['-c', 'import ascendopt.lsp']);
    await deps.writeText(path.join(dir, MARKER), stamp + '\n');
    return python;
  });
}
