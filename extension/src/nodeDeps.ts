/** Node-side helpers: running a process line by line, the filesystem, the Python extension. */

import { spawn } from 'node:child_process';
import { promises as fs } from 'node:fs';
import * as readline from 'node:readline';
import type { RunResult } from './privateEnv';

export function run(
  command: string,
  args: string[],
  onLine: (line: string) => void,
  signal?: AbortSignal,
  timeoutMs?: number,
): Promise<RunResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, {
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, PYTHONUNBUFFERED: '1', PIP_NO_INPUT: '1' },
      ...(signal ? { signal } : {}),
    });
    let output = '';
    const timer = timeoutMs ? setTimeout(() => child.kill('SIGKILL'), timeoutMs) : undefined;
    for (const stream of [child.stdout, child.stderr]) {
      readline.createInterface({ input: stream }).on('line', (line) => {
        output += line + '\n';
        onLine(line);
      });
    }
    child.on('error', (err) => {
      if (timer) clearTimeout(timer);
      if ((err as NodeJS.ErrnoException).name === 'AbortError') {
        resolve({ code: null, output });
      } else {
        reject(err);
      }
    });
    child.on('close', (code) => {
      if (timer) clearTimeout(timer);
      resolve({ code, output });
    });
  });
}

/** Whether `python` can import the language server package (a quick subprocess, 30 s at most). */
export async function hasAscendopt(python: string): Promise<boolean> {
  try {
    const r = await run(python, ['-c', 'import ascendopt.lsp'], () => undefined, undefined, 30_000);
    return r.code === 0;
  } catch {
    return false;
  }
}

export const files = {
  listDir: (dir: string) => fs.readdir(dir),
  readText: async (file: string) => {
    try {
      return await fs.readFile(file, 'utf8');
    } catch {
      return undefined;
    }
  },
  writeText: (file: string, text: string) => fs.writeFile(file, text, 'utf8'),
  exists: async (file: string) => {
    try {
      await fs.access(file);
      return true;
    } catch {
      return false;
    }
  },
  remove: (dir: string) => fs.rm(dir, { recursive: true, force: true }),
  mkdir: async (dir: string) => {
    await fs.mkdir(dir, { recursive: true });
  },
};

/** Base interpreters to build the private environment with, best first. */
export function basePythons(platform: NodeJS.Platform, fromPythonExtension?: string): string[] {
  const names = platform === 'win32' ? ['py', 'python', 'python3'] : ['python3', 'python', 'python3.12', 'python3.11', 'python3.10'];
  return fromPythonExtension ? [fromPythonExtension, ...names] : names;
}
