"""Progress of long work: solver/progress.py (below the answers, so that a solver's own
steps report to it); the answers import it from here too."""

from ..progress import SILENT, Progress, Resumable, started_by_first_step

__all__ = ["SILENT", "Progress", "Resumable", "started_by_first_step"]
