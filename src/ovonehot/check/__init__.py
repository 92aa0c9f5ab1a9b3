"""Checking what an IR declares: ``ovonehot validate``.

:mod:`.validate` infers every layer with the first interpreter (:mod:`ovonehot.infer`,
its record policy: failures become problems), its checks plugged in as per-node hooks, and
compares the result with the IR's declarations and with the OneHot rules
(:mod:`.onehot_rules`, a table of lint rules).
"""
