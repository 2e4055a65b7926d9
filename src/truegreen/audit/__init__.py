"""The static audit: rules that find tests which can pass for the wrong reason.

:mod:`truegreen.audit.base` is the contract every rule is written against;
:mod:`truegreen.audit.engine` parses each file once and walks it once for all rules.
"""
