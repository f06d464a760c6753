"""Points by speed, and the ranking: what a round's players are placed by.

A right answer earns 1,000 points at once down to 500 at the deadline, linearly; a wrong answer none.
Players are placed by points, then by the total time their answers took (less is better), then by how
many they got right; everyone who answered at least once is in the ranking.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

FULL, FLOOR = 1_000, 500


def speed_points(correct: bool, answer_ms: int, seconds: int) -> int:
    """Points for one answer given `answer_ms` after the question went out, with `seconds` to answer."""
    if not correct:
        return 0
    limit = max(1, seconds * 1000)
    late = min(max(answer_ms, 0), limit) / limit
    return round(FULL - (FULL - FLOOR) * late)


@dataclass(frozen=True)
class Standing:
    place: int
    user_id: int
    name: str
    points: int
    right: int
    answered: int
    time_ms: int


def ranking(answers: Iterable[tuple[int, str, int, bool, int, int]]) -> list[Standing]:
    """Standings from (user id, name, question number, right, answer ms, seconds) rows, best first; players
    with the same points and time share a place."""
    totals: dict[int, list] = {}
    for user_id, name, _number, right, answer_ms, seconds in answers:
        row = totals.setdefault(user_id, [name, 0, 0, 0, 0])
        row[1] += speed_points(right, answer_ms, seconds)
        row[2] += int(right)
        row[3] += 1
        row[4] += max(answer_ms, 0)
    ordered = sorted(totals.items(), key=lambda item: (-item[1][1], item[1][4], -item[1][2], item[0]))
    standings: list[Standing] = []
    for index, (user_id, (name, points, right, answered, time_ms)) in enumerate(ordered):
        tied = standings and (standings[-1].points, standings[-1].time_ms) == (points, time_ms)
        place = standings[-1].place if tied else index + 1
        standings.append(Standing(place, user_id, name, points, right, answered, time_ms))
    return standings
