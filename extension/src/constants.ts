/** Names shared with the server (server/ascendopt/lsp/protocol.py) and with package.json. */

/** Commands the server executes (workspace/executeCommand). */
export const ServerCommand = {
  optimize: 'ascendopt.optimize',
  tuneTiling: 'ascendopt.tuneTiling',
  verify: 'ascendopt.verify',
  profile: 'ascendopt.profile',
  mine: 'ascendopt.mineExperience',
  accept: 'ascendopt.acceptSuggestion',
  reject: 'ascendopt.rejectSuggestion',
  showExperience: 'ascendopt.showExperience',
  episodeReport: 'ascendopt.episodeReport',
  showProfile: 'ascendopt.showProfile',
  initSpec: 'ascendopt.initSpec',
  resumeEpisode: 'ascendopt.resumeEpisode',
  runCampaign: 'ascendopt.runCampaign',
} as const;

/** Server → client notifications. */
export const Notification = {
  indexed: 'ascendopt/indexed',
  evaluated: 'ascendopt/evaluated',
  suggestion: 'ascendopt/suggestion',
  episodeEnded: 'ascendopt/episodeEnded',
  campaignEnded: 'ascendopt/campaignEnded',
} as const;

/**
 * The extension's own commands (package.json `contributes.commands`). They differ from the server's
 * command names on purpose: vscode-languageclient registers every command the server advertises
 * (the code lenses use those), so the palette/context-menu commands, which first work out which
 * operator is meant, need ids of their own.
 */
export const ClientCommand = {
  optimize: 'ascendopt.optimizeOperator',
  tuneTiling: 'ascendopt.tuneTilingOnly',
  verify: 'ascendopt.verifyOperator',
  profile: 'ascendopt.profileOperator',
  mine: 'ascendopt.mineOperatorExperience',
  showExperience: 'ascendopt.showExperienceBank',
  restart: 'ascendopt.restartServer',
  setApiKey: 'ascendopt.setApiKey',
  selectBackend: 'ascendopt.selectBackend',
  showOutput: 'ascendopt.showOutput',
  openTemplate: 'ascendopt.openTemplate',
  /** The hover's "more" link (server/ascendopt/lsp/protocol.py OPEN_PROFILE). */
  openProfile: 'ascendopt.openProfile',
  refreshSidebar: 'ascendopt.refreshSidebar',
  review: 'ascendopt.reviewSuggestion',
  accept: 'ascendopt.acceptSuggestionInDiff',
  reject: 'ascendopt.rejectSuggestionInDiff',
  showReport: 'ascendopt.showReport',
  initSpec: 'ascendopt.writeStartingSpec',
  resumeEpisode: 'ascendopt.resumeInterruptedEpisode',
  runCampaign: 'ascendopt.runCampaignOverWorkspace',
} as const;

/** Read-only documents the extension serves. */
export const Scheme = {
  proposed: 'ascendopt-proposed',
  base: 'ascendopt-base',
  experience: 'ascendopt-experience',
} as const;

/** Context keys for `when` clauses. */
export const ContextKey = {
  miningAvailable: 'ascendopt.miningAvailable',
  hasSuggestion: 'ascendopt.hasSuggestion',
} as const;

export const SECTION = 'ascendopt';
export const API_KEY_SECRET = 'ascendopt.llm.apiKey';
export const API_KEY_ENV = 'ASCENDOPT_LLM_API_KEY';
export const OUTPUT_NAME = 'AscendOptimizer';
