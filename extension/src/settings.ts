/** The `ascendopt.*` settings: reading them, and what the server process gets at start. */

import { API_KEY_ENV } from './constants';

/** The subset of vscode.WorkspaceConfiguration this module needs. */
export interface ConfigLike {
  get<T>(section: string): T | undefined;
}

export interface AscendSettings {
  pythonPath: string;
  backend: string;
  sshHosts: string[];
  soc: string | null;
  budget: number;
  llm: { baseUrl: string; model: string };
}

/** The server's minimum (EpisodeSettings.budget; package.json says the same, a test checks it). */
export const MIN_BUDGET = 4;

export const DEFAULTS: AscendSettings = {
  pythonPath: '',
  backend: 'cpu-twin',
  sshHosts: [],
  soc: null,
  budget: 40,
  llm: { baseUrl: '', model: '' },
};

function str(value: unknown, fallback: string): string {
  return typeof value === 'string' ? value.trim() : fallback;
}

/** `config` is `workspace.getConfiguration('ascendopt')`. */
export function readSettings(config: ConfigLike): AscendSettings {
  const budget = config.get<number>('budget');
  const hosts = config.get<unknown>('sshHosts');
  const soc = config.get<unknown>('soc');
  return {
    pythonPath: str(config.get('server.pythonPath'), DEFAULTS.pythonPath),
    backend: str(config.get('backend'), DEFAULTS.backend) || DEFAULTS.backend,
    sshHosts: Array.isArray(hosts) ? hosts.filter((h): h is string => typeof h === 'string' && h.trim() !== '') : [],
    soc: typeof soc === 'string' && soc.trim() !== '' ? soc.trim() : null,
    budget: typeof budget === 'number' && Number.isInteger(budget) && budget >= MIN_BUDGET ? budget : DEFAULTS.budget,
    llm: {
      baseUrl: str(config.get('llm.baseUrl'), ''),
      model: str(config.get('llm.model'), ''),
    },
  };
}

/**
 * initializationOptions in the shape server/ascendopt/lsp/settings.py reads. The API key is NOT
 * here: initialize params can appear in a trace (`ascendopt.trace.server`), so the key travels in
 * the server's environment instead (see serverEnv).
 */
export function initializationOptions(s: AscendSettings): Record<string, unknown> {
  const section: Record<string, unknown> = {
    backend: s.backend,
    budget: s.budget,
    sshHosts: s.sshHosts,
    llm: { baseUrl: s.llm.baseUrl || undefined, model: s.llm.model || undefined },
  };
  if (s.soc) {
    section.soc = s.soc;
  }
  return { ascendopt: section };
}

/** The server's environment: ours, plus the key from SecretStorage when one is set, and the CANN
 * folder Huawei's Ascend C Toolkits extension is configured with as `ASCEND_TOOLKIT_HOME` (what
 * CANN's set_env.sh exports; `local:cann` builds there) unless the environment already names one. */
export function serverEnv(base: NodeJS.ProcessEnv, apiKey: string | undefined, cannHome?: string): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...base, PYTHONUNBUFFERED: '1', PYTHONIOENCODING: 'utf-8' };
  if (apiKey) {
    env[API_KEY_ENV] = apiKey;
  }
  if (cannHome && !base.ASCEND_TOOLKIT_HOME) {
    env.ASCEND_TOOLKIT_HOME = cannHome;
  }
  return env;
}

/** Huawei's official extension ("Ascend C Toolkits", marketplace id CANN-PUB.asc-toolkit). */
export const HUAWEI_EXTENSION = 'CANN-PUB.asc-toolkit';

/** The CANN folder that extension is configured with: the first of its own settings (read from its
 * manifest, whatever it names them) whose key speaks of CANN or the toolkit and of a path, set to a
 * non-empty string. `read` answers a full setting key with its value. */
export function cannPathFrom(manifest: unknown, read: (key: string) => unknown): string | undefined {
  const contributes = (manifest as { contributes?: { configuration?: unknown } } | undefined)?.contributes;
  const sections = contributes?.configuration;
  const list = (Array.isArray(sections) ? sections : sections ? [sections] : []) as { properties?: Record<string, unknown> }[];
  for (const key of list.flatMap((c) => Object.keys(c.properties ?? {}))) {
    if (/cann|toolkit/i.test(key) && /path|home|dir|install/i.test(key)) {
      const value = read(key);
      if (typeof value === 'string' && value.trim()) {
        return value.trim();
      }
    }
  }
  return undefined;
}

/** Settings whose change needs a new server process (the rest the server re-reads itself). */
export function needsRestart(before: AscendSettings, after: AscendSettings): boolean {
  return before.pythonPath !== after.pythonPath;
}

/** Backends offered by "Select backend": the CPU twin and one per configured SSH host. */
export function backendChoices(s: AscendSettings): { label: string; description: string }[] {
  const out = [{ label: 'cpu-twin', description: 'CPU twin: no NPU needed; durations are estimates' }];
  for (const host of s.sshHosts) {
    out.push({ label: `ssh:${host}`, description: `Ascend machine ${host} (build, verify, msprof op)` });
  }
  return out;
}
