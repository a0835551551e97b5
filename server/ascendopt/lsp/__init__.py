"""The editor face: a pygls 2 language server (`ascendopt serve`), thin over the same services as
the CLI. One module per LSP feature:

  app.py          assemble the server          sync.py         settings, index, save/watch → refresh
  index.py        operators per workspace      diagnostics.py  issues + last run → diagnostics
  lenses.py       code lenses                  actions.py      code actions
  hover.py        profile hover                evaluate.py     Verify / Profile (+ re-verify on save)
  optimize.py     Optimize / Tune tiling       suggestions.py  offer, accept, reject
  experience.py   Show experience              jobs.py         background jobs + work-done progress

Besides standard LSP, clients may use (protocol.py): the notifications `ascendopt/indexed`,
`ascendopt/evaluated`, `ascendopt/suggestion` (the paired diff for a diff view) and
`ascendopt/episodeEnded`; a client with its own diff view declares
`capabilities.experimental.ascendopt.suggestionView = true` and then gets no
`workspace/applyEdit` preview.
"""
