"""Progress of long work (light: the command line imports it before any solver)."""


class Progress:
    """Reports long work: the command line draws a bar on stderr (cli/common.py); the API is
    silent unless given one."""

    def start(self, label: str, total: int) -> None:
        pass

    def advance(self, n: int = 1) -> None:
        pass

    def finish(self) -> None:
        pass


SILENT = Progress()
