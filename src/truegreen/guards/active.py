"""The guard of this process: which one is active, and its listeners on the one hook."""

from __future__ import annotations

import os

from truegreen.guards import hook, network, spawns, writes
from truegreen.guards.runtime import Guard

TYPE_CHECKING = False  # typing itself is too dear for a child's start-up
if TYPE_CHECKING:
    from typing import Optional

    from truegreen.guards.hook import Listener

_GUARD: Optional[Guard] = None


def listeners_for(guard: Guard) -> dict[str, Listener]:
    """The listeners of every audit event the policy (and the failure hints) care about."""
    listeners = {}
    if guard.policy.writes_on:
        listeners.update(writes.listeners(guard))
    elif guard.notes_reads or guard.policy.reads != "off":
        listeners["open"] = writes.reads_listener(guard)
    if guard.policy.network != "allow":
        listeners.update(network.listeners(guard))
    listeners.update(spawns.listeners(guard))
    return listeners


def activate(guard: Guard) -> None:
    """Route every audit event the policy cares about to ``guard``'s listeners."""
    global _GUARD
    _GUARD = guard
    listeners = listeners_for(guard)
    hook.install()
    hook.clear()
    hook.listen(listeners)
    if "open" in listeners:
        writes.wrap_open()


def deactivate() -> Optional[Guard]:
    """Stop guarding; the hook stays installed as a set lookup."""
    global _GUARD
    guard, _GUARD = _GUARD, None
    hook.clear()
    writes.unwrap_open()
    if guard is not None and guard.tracking is not None:
        network.untrack_listeners(guard.tracking)
        guard.tracking = None
    return guard


def current() -> Optional[Guard]:
    return _GUARD


def _after_fork() -> None:
    if _GUARD is not None:
        _GUARD.after_fork()


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_after_fork)
