"""One way for the tests to run a CLI command and check its exit code."""

from click.testing import CliRunner

from dicesolver.cli import main, yahtzee_main


def invoke(group, prog, args, code=0, input=None):
    res = CliRunner().invoke(group, list(args), prog_name=prog, input=input)
    if res.exc_info and not isinstance(res.exception, SystemExit):
        import traceback

        detail = "".join(traceback.format_exception(*res.exc_info))
    else:
        detail = res.stderr
    assert code is None or res.exit_code == code, (res.output, detail)
    return res


def zilch(*args, code=0, input=None):
    return invoke(main, "zilch", args, code, input)


def yahtzee(*args, code=0):
    return invoke(yahtzee_main, "yahtzee", args, code)
