"""Checking what an IR declares: ``ovonehot validate``.

:mod:`.validate` infers every layer with the first interpreter (:mod:`ovonehot.infer`),
tolerating failures, and compares the result with the IR's declarations and with
the OneHot specifications' rules.
"""
