"""Delta debugging over ambient factors: the smallest set that flips a test, in few reruns.

A factor is numbered ``0..n-1``; a subset is the factors applied on top of the sealed run.
A test *flips* under a subset when it then gets its ambient outcome. Two premises hold
before any search starts: the empty subset (the sealed run) does not flip the test, and the
whole set does (checked by one rerun). The search first bisects as if one factor were to
blame, which costs one rerun per halving; if the factor it ends on does not flip the test
alone, it falls back to Zeller's ddmin, which finds a 1-minimal set whatever the factors do
together. Several tests are searched in lockstep over one cache of reruns, and each rerun
runs every test still searching, so tests that share a culprit share every rerun.
"""

from __future__ import annotations

from collections.abc import Generator, Mapping, Sequence
from typing import Callable, Optional

Subset = frozenset[int]
# Yields the subsets to try, is sent whether each flips the test, returns the culprit.
Search = Generator[Subset, bool, Subset]
# Runs the given tests with a subset applied; whether each test flipped.
Oracle = Callable[[Subset, Sequence[str]], Mapping[str, bool]]


def _split(items: Sequence[int], parts: int) -> list[list[int]]:
    size, extra = divmod(len(items), parts)
    chunks, start = [], 0
    for index in range(parts):
        end = start + size + (1 if index < extra else 0)
        chunks.append(list(items[start:end]))
        start = end
    return [chunk for chunk in chunks if chunk]


def ddmin(universe: Sequence[int]) -> Search:
    """Zeller's ddmin: a subset of ``universe`` that flips and from which no single factor
    can be removed, given that ``universe`` flips and the empty set does not."""
    current = sorted(universe)
    parts = 2
    while len(current) >= 2:
        chunks = _split(current, parts)
        reduced: Optional[list[int]] = None
        for chunk in chunks:
            if (yield frozenset(chunk)):
                reduced, parts = chunk, 2
                break
        if reduced is None and len(chunks) > 2:  # with two chunks the complements are the chunks
            for chunk in chunks:
                rest = [factor for factor in current if factor not in chunk]
                if (yield frozenset(rest)):
                    reduced, parts = rest, max(parts - 1, 2)
                    break
        if reduced is not None:
            current = reduced
        elif parts >= len(current):
            break
        else:
            parts = min(len(current), parts * 2)
    return frozenset(current)


def culprit(universe: Sequence[int]) -> Search:
    """Bisect as if one factor were to blame (one rerun per halving, one to confirm), and
    fall back to :func:`ddmin` when the factor found does not flip the test alone."""
    current = sorted(universe)
    confirmed = True
    while len(current) > 1:
        first, second = _split(current, 2)
        if (yield frozenset(first)):
            current, confirmed = first, True
        else:
            current, confirmed = second, False
    if confirmed or (yield frozenset(current)):
        return frozenset(current)
    return (yield from ddmin(universe))


def hunt(
    count: int, tests: Sequence[str], oracle: Oracle
) -> tuple[dict[str, Optional[Subset]], int]:
    """Each test's culprit among ``count`` factors (None when even all of them do not flip
    it), and the number of reruns spent. ``tests`` all differ between the two runs."""
    everything = frozenset(range(count))
    answers: dict[Subset, dict[str, bool]] = {}
    found: dict[str, Optional[Subset]] = {}
    reruns = 0

    def rerun(subset: Subset, which: Sequence[str]) -> None:
        nonlocal reruns
        reruns += 1
        flipped = oracle(subset, which)
        answers.setdefault(subset, {}).update({t: bool(flipped.get(t, False)) for t in which})

    if not count:
        return dict.fromkeys(tests), 0
    rerun(everything, list(tests))
    searches: dict[str, Search] = {}
    asking: dict[str, Subset] = {}
    for test in tests:
        if not answers[everything].get(test, False):
            found[test] = None
            continue
        search = culprit(range(count))
        try:
            asking[test] = next(search)
            searches[test] = search
        except StopIteration as done:
            found[test] = done.value
    while searches:
        for test in list(searches):
            while test in searches and test in answers.get(asking[test], {}):
                try:
                    asking[test] = searches[test].send(answers[asking[test]][test])
                except StopIteration as done:
                    found[test] = done.value
                    del searches[test], asking[test]
        if not searches:
            break
        wanted: dict[Subset, int] = {}
        for subset in asking.values():
            wanted[subset] = wanted.get(subset, 0) + 1
        subset = max(wanted, key=lambda s: (wanted[s], sorted(s)))
        rerun(subset, sorted(searches))
    return found, reruns
