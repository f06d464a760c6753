"""Points by speed and the ranking's order."""

from __future__ import annotations

from bot.quiz.scoring import ranking, speed_points


def test_points_fall_from_1000_at_once_to_500_at_the_deadline() -> None:
    assert speed_points(True, 0, 20) == 1000
    assert speed_points(True, 10_000, 20) == 750
    assert speed_points(True, 20_000, 20) == 500
    assert speed_points(True, 99_000, 20) == 500, "a late answer the store still took: the floor"
    assert speed_points(False, 0, 20) == 0


def test_ties_on_points_are_broken_by_total_time_and_shared_when_equal() -> None:
    rows = [(1, "Ana", 1, True, 2000, 10), (2, "Bo", 1, True, 2000, 10), (3, "Cem", 1, False, 500, 10),
            (4, "Dee", 1, True, 1000, 10)]
    standings = ranking(rows)
    assert [(s.name, s.place) for s in standings] == [("Dee", 1), ("Ana", 2), ("Bo", 2), ("Cem", 4)]
    assert standings[0].points == 950 and standings[-1].points == 0 and standings[-1].answered == 1
