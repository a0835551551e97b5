# The package list lives here only because pyproject.toml cannot combine
# `packages.find` with the extra mapping of the root templates/ folder.
from setuptools import find_packages, setup

setup(packages=[*find_packages("server"), "ascendopt.templates"])
