"""Names the server and its clients agree on: commands, custom notifications, capabilities."""

from __future__ import annotations

OPTIMIZE = "ascendopt.optimize"
TUNE_TILING = "ascendopt.tuneTiling"
VERIFY = "ascendopt.verify"
PROFILE = "ascendopt.profile"
MINE = "ascendopt.mineExperience"
ACCEPT = "ascendopt.acceptSuggestion"
REJECT = "ascendopt.rejectSuggestion"
SHOW_EXPERIENCE = "ascendopt.showExperience"
CAMPAIGN = "ascendopt.runCampaign"  # [{paths?, budget?, strategies?}]

# Server → client notifications.
INDEXED = "ascendopt/indexed"  # {folders, operators: [{name, root, kernel}]}
EVALUATED = "ascendopt/evaluated"  # {operator, operatorRoot, action, status, correct, verdict, cases}
# {id, operator, operatorRoot, title, speedups, geomean, summary, files: [{path, uri, current, proposed}]}
SUGGESTION = "ascendopt/suggestion"
CAMPAIGN_ENDED = "ascendopt/campaignEnded"  # {campaign, report, summary: [line per strategy]}
EPISODE_ENDED = "ascendopt/episodeEnded"  # {operator, operatorRoot, episode, cancelled, message, suggestion}

# A client that shows suggestions itself (the VS Code extension's diff view) declares
# `capabilities.experimental.ascendopt.suggestionView = true`; others get a workspace/applyEdit
# whose change annotations need confirmation, so any LSP client can preview the paired edit.
EXPERIMENTAL_KEY = "ascendopt"
SUGGESTION_VIEW = "suggestionView"
