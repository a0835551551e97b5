"""AscendOptimizer: tune AscendC operators (tiling program + kernel), verified and measured."""

__version__ = "0.1.0"
