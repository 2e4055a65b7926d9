"""Which audit events a guard listens to: none that its policy and the hints do not need."""

from __future__ import annotations

from truegreen.guards.active import listeners_for
from truegreen.guards.policy import Policy
from truegreen.guards.runtime import Guard


def guard(*, writes: str = "off", network: str = "loopback", notes_reads: bool) -> Guard:
    made = Guard(Policy(writes=writes, network=network, run_dir=""), role="session")
    made.notes_reads = notes_reads
    return made


def test_the_hints_alone_listen_to_opens_when_the_write_guard_is_off() -> None:
    assert "open" in listeners_for(guard(notes_reads=True))


def test_the_network_guard_alone_does_not_listen_to_opens() -> None:
    """Every open would call into Python for a note nobody reads (the hints are off).

    Ablation: replace `guard.notes_reads` with `True` in `src/truegreen/guards/active.py`."""
    listened = listeners_for(guard(notes_reads=False))

    assert "socket.connect" in listened  # premise: the network guard listens
    assert "open" not in listened


def test_the_write_guard_listens_to_opens_without_the_hints() -> None:
    assert "open" in listeners_for(guard(writes="fail", notes_reads=False))


def test_the_os_open_wrapper_keeps_its_dir_fd_support_and_is_undone() -> None:
    """``shutil`` decides from ``os.supports_dir_fd`` whether rmtree walks by descriptor."""
    import os

    from truegreen.guards import writes

    wrapped = os.open is writes._open  # this suite runs guarded itself
    try:
        writes.unwrap_open()
        assert os.open is writes._os_open
        assert writes._open not in os.supports_dir_fd
        writes.wrap_open()
        assert os.open is writes._open
        assert os.open in os.supports_dir_fd
    finally:
        (writes.wrap_open if wrapped else writes.unwrap_open)()
