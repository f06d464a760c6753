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
from bot.learner.verdict import level

BEST_FEW = 3  # the next question is drawn from this many most informative ones
STOP_SURE = 0.9  # an interview asked to stop when sure ends once every topic's band is this probable
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


def shortlist(bank: Bank, filters: InterviewFilters, asked: Sequence[str], abilities: Mapping[str, Estimate],
              seen: Mapping[str, float], rng: random.Random) -> list[Question]:
    """The questions the next one is chosen from: the unasked ones of the topic asked least so far (ties:
    the least known topic), those not seen recently if any are left, in random order. Empty when the
    filters' pool is used up. Only these need their difficulty read (the store reads no more)."""
    done = set(asked)
    left = [q for q in bank.select(filters.topics, filters.difficulty, filters.seniority) if q.id not in done]
    if not left:
        return []
    by_topic: dict[str, list[Question]] = {}
    for question in left:
        by_topic.setdefault(question.topic, []).append(question)
    asked_per_topic: dict[str, int] = {}
    for question_id in asked:
        known = bank.get(question_id)
        if known is not None:
            asked_per_topic[known.topic] = asked_per_topic.get(known.topic, 0) + 1
    topic = min(sorted(by_topic), key=lambda name: (asked_per_topic.get(name, 0),
                                                     -abilities.get(name, PRIOR).variance, rng.random()))
    candidates = [q for q in by_topic[topic] if q.id not in seen] or by_topic[topic]
    rng.shuffle(candidates)  # equal information (one label, no answers yet) is a random draw
    return candidates


def most_informative(candidates: Sequence[Question], bank: Bank, asked: Sequence[str],
                     abilities: Mapping[str, Estimate], calibrated: Mapping[str, Estimate],
                     rng: random.Random) -> Question | None:
    """One of the BEST_FEW candidates most informative at the person's ability in their topic; among
    equally informative ones, those whose tags were asked least in this interview."""
    if not candidates:
        return None
    asked_tags: dict[str, int] = {}
    for question_id in asked:
        known = bank.get(question_id)
        for tag in known.tags if known is not None else ():
            asked_tags[tag] = asked_tags.get(tag, 0) + 1
    ability = abilities.get(candidates[0].topic, PRIOR).value
    ranked = sorted(candidates, key=lambda q: (-round(information(ability, difficulty_of(q, calibrated)), 3),
                                               sum(asked_tags.get(tag, 0) for tag in q.tags)))
    return rng.choice(ranked[:BEST_FEW])


def next_adaptive(bank: Bank, filters: InterviewFilters, asked: Sequence[str], abilities: Mapping[str, Estimate],
                  calibrated: Mapping[str, Estimate], seen: Mapping[str, float],
                  rng: random.Random) -> Question | None:
    """The next question of an adaptive interview, or None when the filters' pool is used up."""
    candidates = shortlist(bank, filters, asked, abilities, seen, rng)
    return most_informative(candidates, bank, asked, abilities, calibrated, rng)


def sure_enough(filters: InterviewFilters, asked: Sequence[str], bank: Bank,
                abilities: Mapping[str, Estimate]) -> bool:
    """An interview that asked to stop when sure may end: enough answers, and every topic asked has its
    band (the verdict's) at least STOP_SURE probable. The band, not a standard error, is what a person
    wants to be sure of: an ability far from both cut-offs is placed long before it is known closely."""
    if not filters.stop_when_sure or len(asked) < STOP_AFTER:
        return False
    topics = {question.topic for question in (bank.get(qid) for qid in asked) if question is not None}
    return all(level(abilities.get(topic, PRIOR)).confidence >= STOP_SURE for topic in topics)


def ended_sure(filters: InterviewFilters, bank: Bank, status: str, answered: int) -> bool:
    """Whether a finished interview ended early because it was sure: it asked to, and it finished before
    both its count and its pool ran out (the only other way an interview, adaptive or pinned, finishes short)."""
    if not filters.stop_when_sure or status != "finished" or answered == 0:
        return False
    return answered < min(filters.count, len(bank.select(filters.topics, filters.difficulty, filters.seniority)))
