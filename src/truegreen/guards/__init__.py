"""The audit-hook runtime: one hook, many listeners, also loaded into child processes.

Nothing here imports pytest: the same code runs in Python children through the
``sitecustomize`` shim, where there is no pytest.
"""
