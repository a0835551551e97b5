/** The payloads of the server's custom notifications: the pydantic models in
 * server/ascendopt/lsp/protocol.py (tests/lsp/test_protocol.py checks that the two agree). */

export interface IndexedOperator {
  name: string;
  root: string;
  kernel: string; // a file URI
}

export interface IndexedParams {
  folders: string[];
  operators: IndexedOperator[];
}

export interface EvaluatedCase {
  name: string;
  status: string;
  durationUs: number | null;
  label: string | null;
}

export interface EvaluatedParams {
  operator: string;
  operatorRoot: string;
  action: 'verify' | 'profile';
  status: string;
  correct: boolean;
  verdict: string;
  compileErrors: number;
  findings: number;
  cases: EvaluatedCase[];
}

export interface SuggestionFile {
  path: string; // relative to the operator root
  uri: string; // the file on disk
  current: string; // the text the episode started from
  proposed: string;
}

export interface Speedup {
  case: string;
  baseline_us: number;
  candidate_us: number;
  speedup: number;
  noise: number;
  kind: string; // "estimate" or "measured"
}

/** How an episode ended, worded by the server (server/ascendopt/agent/outcome.py): shown, never re-worded. */
export interface OutcomeSummary {
  status: 'suggestion' | 'no_gain' | 'cancelled' | 'failed';
  title: string; // short: a diff title, the status line
  headline: string; // one line: a toast
  details: string[]; // per case (regressions marked), timing kind and backend, kernel rewriting
}

export interface SuggestionParams {
  id: string;
  operator: string;
  operatorRoot: string;
  title: string;
  speedups: Speedup[];
  geomean: number;
  summary: string;
  files: SuggestionFile[];
  outcome?: OutcomeSummary | null;
}

export interface EpisodeEndedParams {
  operator: string;
  operatorRoot: string;
  episode: string;
  cancelled: boolean;
  message: string;
  suggestion: string | null;
  outcome?: OutcomeSummary | null;
}

/** What episodeReport answers: the report page, or why there is none. */
export interface ReportResult {
  episode?: string;
  title?: string;
  html?: string;
  error?: string;
}

/** What acceptSuggestion answers. */
export interface AcceptResult {
  applied: boolean;
  files?: string[];
  stale?: string[];
  message?: string;
}

export interface RejectResult {
  rejected: boolean;
  message?: string;
}

/** The first argument of every operator command. */
export type Target = { uri: string } | { operatorRoot: string; name: string };

export interface Lesson {
  id: string;
  title: string;
  family?: string | null;
  bottleneck?: string | null;
  bound?: string | null;
  timing?: string | null;
  slowUs?: number | null;
  fastUs?: number | null;
  provenance?: string | null;
  operator?: string | null;
}

export interface ExperienceResult {
  workspace?: string;
  count?: number;
  lessons: Lesson[];
  message?: string;
}

/** The answer to `ascendopt/workspaceState` (the sidebar). */
export interface StateOperator {
  name: string;
  root: string;
  kernel: string; // a file URI
  spec: 'ok' | 'missing' | 'invalid';
  specProblem: string | null;
  lastVerify: string | null;
  lastProfile: string | null;
  running: boolean;
}

export interface StateEpisode {
  id: string;
  operator: string;
  ended: boolean;
  cancelled: boolean;
  message: string;
  bestSpeedup: number | null;
  evaluations: number;
}

export interface StateSuggestion {
  id: string;
  operator: string;
  operatorRoot: string;
  episode: string;
  geomean: number;
  /** What the speedup rests on: 'estimate' (the CPU twin's timing model), 'measured', 'mixed'. */
  timing: string;
  summary: string;
}

export interface StateLesson {
  id: string;
  title: string;
  family: string | null;
  markdown: string;
}

export interface WorkspaceState {
  folders: string[];
  operators: StateOperator[];
  episodes: StateEpisode[];
  suggestions: StateSuggestion[];
  lessons: StateLesson[];
  message: string | null;
}

/** `ascendopt.initSpec`'s answer (server/ascendopt/lsp/spec_init.py). */
export interface InitSpecResult {
  status: 'ok' | 'exists' | 'error';
  operatorRoot?: string;
  name?: string;
  path?: string;
  notes?: string[];
  next?: string;
  message?: string;
}

/** `ascendopt/campaignEnded` (server/ascendopt/lsp/campaign.py). */
export interface CampaignEndedParams {
  campaign: string;
  report: string;
  summary: string[];
}
