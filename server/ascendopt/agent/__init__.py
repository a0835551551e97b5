"""The episode: host-side tiling search and experience-guided kernel rewriting, verified and journaled."""
