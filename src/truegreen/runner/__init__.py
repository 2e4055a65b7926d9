"""Starting pytest (forked or spawned), collecting units, reading outcomes back from the event
stream, ending process trees, and truegreen's own git: the one place that runs things.

The command's verbs call in here; the plugin never does (and this package never imports the
plugin): the two meet only through :mod:`truegreen.core.protocol` and the event stream.
"""
