"""The one family of errors truegreen raises for a user's mistakes."""

from __future__ import annotations


class TruegreenError(Exception):
    """A problem the user can fix; shown as one line, never as a traceback.

    ``slug`` names the kind of problem for machine readers; ``exit_status``
    is what the command line exits with.
    """

    slug = "error"
    exit_status = 2


class ConfigError(TruegreenError):
    """A ``[tool.truegreen]`` table, ``TRUEGREEN_*`` variable or flag holds a bad value."""

    slug = "config"


class UsageError(TruegreenError):
    """A command line that cannot be carried out as written."""

    slug = "usage"


class DataError(TruegreenError):
    """A file truegreen wrote and reads back (a shard manifest, an event stream) is corrupt:
    the message names the file, the line or the field."""

    slug = "data"
