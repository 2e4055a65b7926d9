import sys


def main() -> int:
    """The ``truegreen`` command (and ``python -m truegreen``): an unchanged tree's audit is
    answered before the command line's module (argparse, every verb's helpers) is imported."""
    words = sys.argv[1:]
    if words[:1] == ["audit"]:
        from truegreen.audit.quick import answer

        status = answer(words[1:])
        if status is not None:
            return status
    from truegreen.cli import main as command

    return command(words, quick=False)


if __name__ == "__main__":
    raise SystemExit(main())
