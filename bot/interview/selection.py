"""Which questions an interview asks: matching the filters, unseen ones first, no repeats.

Two ways. A pinned interview (`--difficulty`) is planned at its start: never-seen questions in random
order, then the least recently seen. An adaptive one (the default when the difficulty is not pinned)
chooses each question when the one before is answered: the chosen topic asked least so far, then
among its unasked questions the most informative at the person's current ability in that topic
(Fisher information of the Rasch model, largest where difficulty meets ability), equally informative
ones ordered by how little their tags were asked already, picked at random among the best few
("randomesque") so that two people of one ability do not get one sequence.
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence

from bot.bank.loader import Bank
from bot.domain import InterviewFilters, Question
from bot.learner.ability import PRIOR, Estimate, information
from bot.learner.items import starting_difficulty

BEST_FEW = 3  # the next question is drawn from this many most informative ones
STOP_SE = 0.45  # an interview asked to stop when sure ends once every topic asked is known this well
STOP_AFTER = 5  # ... and never before this many answers
PENDING = ""  # a plan slot whose question is chosen when it is reached (adaptive interviews)


def is_adaptive(filters: InterviewFilters) -> bool:
    """Adaptive unless asked otherwise, the difficulty is pinned, or the run must repeat (a seed): what an
    adaptive interview asks depends on the person's history, which a repeat cannot hold still."""
    if filters.adaptive is not None:
        return filters.adaptive
    return filters.difficulty is None and not filters.repeatable


def plan_interview(bank: Bank, filters: InterviewFilters, seen: Mapping[str, float],
                   rng: random.Random) -> list[str]:
    """Question ids for an interview: never-seen questions in random order, then the least recently seen."""
    pool = bank.select(filters.topics, filters.difficulty, filters.seniority)
    fresh = [question for question in pool if question.id not in seen]
    rng.shuffle(fresh)
    stale = sorted((question for question in pool if question.id in seen), key=lambda q: (seen[q.id], q.id))
    chosen: Sequence[Question] = (fresh + stale)[: filters.count]
    return [question.id for question in chosen]


def difficulty_of(question: Question, calibrated: Mapping[str, Estimate]) -> float:
    """The item's recalibrated difficulty, or its label's logit while nobody has answered it."""
    return (calibrated.get(question.id) or starting_difficulty(question.difficulty)).value


def next_adaptive(bank: Bank, filters: InterviewFilters, asked: Sequence[str], abilities: Mapping[str, Estimate],
                  calibrated: Mapping[str, Estimate], seen: Mapping[str, float],
                  rng: random.Random) -> Question | None:
    """The next question of an adaptive interview, or None when the filters' pool is used up."""
    done = set(asked)
    left = [q for q in bank.select(filters.topics, filters.difficulty, filters.seniority) if q.id not in done]
    if not left:
        return None
    by_topic: dict[str, list[Question]] = {}
    for question in left:
        by_topic.setdefault(question.topic, []).append(question)
    asked_per_topic: dict[str, int] = {}
    asked_tags: dict[str, int] = {}
    for question_id in asked:
        known = bank.get(question_id)
        if known is not None:
            asked_per_topic[known.topic] = asked_per_topic.get(known.topic, 0) + 1
            for tag in known.tags:
                asked_tags[tag] = asked_tags.get(tag, 0) + 1
    topic = min(sorted(by_topic), key=lambda name: (asked_per_topic.get(name, 0),
                                                     -abilities.get(name, PRIOR).variance, rng.random()))
    candidates = [q for q in by_topic[topic] if q.id not in seen] or by_topic[topic]
    rng.shuffle(candidates)  # equal information (one label, no answers yet) is a random draw
    ability = abilities.get(topic, PRIOR).value
    # the most informative first; among equally informative ones, those whose tags were asked least
    candidates.sort(key=lambda q: (-round(information(ability, difficulty_of(q, calibrated)), 3),
                                   sum(asked_tags.get(tag, 0) for tag in q.tags)))
    return rng.choice(candidates[:BEST_FEW])


def sure_enough(filters: InterviewFilters, asked: Sequence[str], bank: Bank,
                abilities: Mapping[str, Estimate]) -> bool:
    """An interview that asked to stop when sure may end: enough answers, every topic asked well known."""
    if not filters.stop_when_sure or len(asked) < STOP_AFTER:
        return False
    topics = {question.topic for question in (bank.get(qid) for qid in asked) if question is not None}
    return all(abilities.get(topic, PRIOR).se <= STOP_SE for topic in topics)
