/**
 * Which Python runs `python -m ascendopt serve`, in this order:
 *   1. the `ascendopt.server.pythonPath` setting (used as given; an error if it lacks ascendopt),
 *   2. the interpreter selected in the Python extension, if that extension is installed and the
 *      interpreter has the `ascendopt` package,
 *   3. a private virtual environment in the extension's global storage, created on first use from
 *      the bundled package, with the user's consent (privateEnv.ts).
 */

export type InterpreterSource = 'setting' | 'python-extension' | 'private-env';

export interface Interpreter {
  python: string;
  source: InterpreterSource;
}

export class InterpreterError extends Error {}

export interface InterpreterDeps {
  /** `ascendopt.server.pythonPath`, trimmed; '' when unset. */
  settingPath(): string;
  /** The Python extension's selected interpreter, or undefined (no extension, none selected). */
  pythonExtensionPath(): Promise<string | undefined>;
  /** Whether `python -c "import ascendopt.lsp"` succeeds. */
  hasAscendopt(python: string): Promise<boolean>;
  /** The private environment's interpreter, creating it if needed (asks first); undefined when
   * the user declines. */
  privateEnv(): Promise<string | undefined>;
  /** The wheel the extension carries (extension/server/ascendopt-*.whl), for an install hint that
   * resolves: `ascendopt` is not on PyPI. */
  bundledWheel?(): Promise<string | undefined>;
  log(message: string): void;
}

/** What to run to put ascendopt into `python`: the bundled wheel when there is one, else the
 * repository's package (`pip install -e .` in a checkout). */
export function installHint(python: string, wheel: string | undefined): string {
  return wheel
    ? `"${python}" -m pip install "${wheel}"`
    : `"${python}" -m pip install -e <your ascendopt checkout>`;
}

export async function resolveInterpreter(deps: InterpreterDeps): Promise<Interpreter> {
  const configured = deps.settingPath();
  if (configured) {
    if (!(await deps.hasAscendopt(configured))) {
      const wheel = await deps.bundledWheel?.().catch(() => undefined);
      throw new InterpreterError(
        `ascendopt.server.pythonPath is ${configured}, which cannot import ascendopt. Install it there ` +
          `(${installHint(configured, wheel)}) or clear the setting to let the extension manage its own environment.`,
      );
    }
    return { python: configured, source: 'setting' };
  }
  let selected: string | undefined;
  try {
    selected = await deps.pythonExtensionPath();
  } catch (err) {
    deps.log(`the Python extension did not tell its interpreter: ${String(err)}`);
  }
  if (selected) {
    if (await deps.hasAscendopt(selected)) {
      return { python: selected, source: 'python-extension' };
    }
    deps.log(`the Python extension's interpreter ${selected} has no ascendopt package; using the private environment`);
  }
  const env = await deps.privateEnv();
  if (!env) {
    throw new InterpreterError(
      'AscendOptimizer has no Python server to run: set ascendopt.server.pythonPath, or allow it to create its own environment (Restart server asks again).',
    );
  }
  return { python: env, source: 'private-env' };
}

/** The interpreter the ms-python extension has selected for `resource`, via its public API. */
export interface PythonExtensionApi {
  environments?: {
    getActiveEnvironmentPath(resource?: unknown): { path: string } | undefined;
    resolveEnvironment(env: { path: string } | string): Promise<{ executable: { uri?: { fsPath: string } } } | undefined>;
  };
  settings?: {
    getExecutionDetails(resource?: unknown): { execCommand: string[] | undefined };
  };
}

export async function selectedInterpreter(api: PythonExtensionApi | undefined, resource?: unknown): Promise<string | undefined> {
  if (!api) {
    return undefined;
  }
  if (api.environments) {
    const active = api.environments.getActiveEnvironmentPath(resource);
    if (active) {
      const resolved = await api.environments.resolveEnvironment(active);
      const exe = resolved?.executable.uri?.fsPath;
      if (exe) {
        return exe;
      }
    }
  }
  const exec = api.settings?.getExecutionDetails(resource).execCommand;
  return exec && exec.length === 1 ? exec[0] : undefined;
}
