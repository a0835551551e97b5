"""Experience: lessons (slow→fast changes with their evidence) kept in a per-workspace bank and
retrieved for an operator's diagnosis to guide kernel rewriting.

bank.Bank stores and searches; retrieval turns a Diagnosis into an FTS5 query; io moves lessons
in and out (JSONL, the paper's public format); the rewind miner (miner.py) measures lessons
from a good operator. The episode reads through LessonRetriever and writes through Bank.add.
"""

from ascendopt.experience.bank import Bank
from ascendopt.experience.records import (
    CodeDiff,
    Diagnosis,
    EditApplicator,
    ExperienceEntry,
    KnobApplicator,
    SearchFilters,
)
from ascendopt.experience.retrieval import LessonRetriever

__all__ = [
    "Bank",
    "CodeDiff",
    "Diagnosis",
    "EditApplicator",
    "ExperienceEntry",
    "KnobApplicator",
    "LessonRetriever",
    "SearchFilters",
]
