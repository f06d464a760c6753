"""Prometheus metrics of a running bot, served on `--metrics HOST:PORT` at /metrics (prometheus-client).

Counting is one call wherever something happens (`count_answer`, `metered_send`, ...), and a no-op
until `enable()`: prometheus-client costs a process about 100 ms of start-up and 2 MB, which the
console and a bot run without `--metrics` do not pay. Once enabled, the metrics live in the client's
default registry. What each one is for, and the alerts worth having: docs/operations.md.
"""

from __future__ import annotations

import contextlib
import functools
import logging
import time
from collections.abc import Awaitable, Callable, Iterator
from dataclasses import dataclass
from typing import Any, ParamSpec, TypeVar

from bot.port import ChatForbidden, ChatGone, ChatMoved, DeliveryUnknown

log = logging.getLogger(__name__)
P = ParamSpec("P")
T = TypeVar("T")
SEND_BUCKETS = (0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0, 60.0, 120.0)


@dataclass(frozen=True)
class Metrics:
    """The metric objects, made once by `enable()`."""

    answers: Any
    interviews_started: Any
    sends: Any
    send_seconds: Any
    rate_limited: Any
    scheduler_lag: Any
    updates_in_flight: Any


_enabled: Metrics | None = None


def enable() -> Metrics:
    """Create the metrics (once per process); from then on every count is kept."""
    global _enabled
    if _enabled is None:
        from prometheus_client import Counter, Gauge, Histogram

        _enabled = Metrics(
            answers=Counter("interview_bot_answers", "Answers recorded, by platform and kind (interview or daily)",
                            ["platform", "kind"]),
            interviews_started=Counter("interview_bot_interviews_started", "Interviews and reviews started",
                                       ["platform"]),
            sends=Counter("interview_bot_sends", "Requests that send or edit a message, by platform and outcome "
                          "(ok, gone, forbidden, moved, unknown, error)", ["platform", "outcome"]),
            send_seconds=Histogram("interview_bot_send_seconds", "Time to send or edit one message, waiting for "
                                   "the pace and retries included", ["platform"], buckets=SEND_BUCKETS),
            rate_limited=Counter("interview_bot_rate_limited", "Answers of 429 Too Many Requests from a platform",
                                 ["platform"]),
            scheduler_lag=Gauge("interview_bot_scheduler_lag_seconds", "How late the latest tick of a timer ran "
                                "after the moment it was due", ["timer"]),
            updates_in_flight=Gauge("interview_bot_updates_in_flight", "Platform updates (commands, clicks) being "
                                    "handled now", ["platform"]),
        )
    return _enabled


def count_answer(platform: str, kind: str) -> None:
    if _enabled is not None:
        _enabled.answers.labels(platform, kind).inc()


def count_interview(platform: str) -> None:
    if _enabled is not None:
        _enabled.interviews_started.labels(platform).inc()


def count_rate_limited(platform: str) -> None:
    if _enabled is not None:
        _enabled.rate_limited.labels(platform).inc()


def scheduler_lag(timer: str, seconds: float) -> None:
    if _enabled is not None:
        _enabled.scheduler_lag.labels(timer).set(seconds)


@contextlib.contextmanager
def in_flight(platform: str) -> Iterator[None]:
    """Count an update as being handled while the block runs."""
    if _enabled is None:
        yield
        return
    with _enabled.updates_in_flight.labels(platform).track_inprogress():
        yield


def outcome_of(error: BaseException | None) -> str:
    """A send's outcome as the label the core's delivery errors map to (anything else: error)."""
    if error is None:
        return "ok"
    for kind, label in ((ChatGone, "gone"), (ChatForbidden, "forbidden"), (ChatMoved, "moved"),
                        (DeliveryUnknown, "unknown")):
        if isinstance(error, kind):
            return label
    return "error"


def metered_send(platform: str) -> Callable[[Callable[P, Awaitable[T]]], Callable[P, Awaitable[T]]]:
    """Count and time every call of a port's send/edit path, by its outcome."""
    def decorate(function: Callable[P, Awaitable[T]]) -> Callable[P, Awaitable[T]]:
        @functools.wraps(function)
        async def metered(*args: P.args, **kwargs: P.kwargs) -> T:
            if _enabled is None:
                return await function(*args, **kwargs)
            metrics, started, error = _enabled, time.perf_counter(), None
            try:
                return await function(*args, **kwargs)
            except BaseException as failure:  # a cancelled send counts too: as an error, not as sent
                error = failure
                raise
            finally:
                metrics.sends.labels(platform, outcome_of(error)).inc()
                metrics.send_seconds.labels(platform).observe(time.perf_counter() - started)
        return metered
    return decorate


def parse_address(text: str) -> tuple[str, int] | None:
    """`HOST:PORT` (`[::1]:9100` for IPv6) -> (host, port); None when it is not one."""
    host, _, port = text.rpartition(":")
    host = host.strip("[]")
    if not host or not port.isdigit() or not 0 <= int(port) <= 65535:
        return None
    return host, int(port)


@dataclass
class MetricsServer:
    """The /metrics HTTP server (a daemon thread): where it listens, and how to stop it."""

    server: Any  # wsgiref's WSGIServer

    @property
    def port(self) -> int:
        return int(self.server.server_address[1])

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


def serve_metrics(address: str) -> MetricsServer:
    """Enable the metrics and serve /metrics on HOST:PORT (port 0: any free one); OSError if it cannot
    listen there."""
    parsed = parse_address(address)
    if parsed is None:
        raise ValueError(f"--metrics must be HOST:PORT, not {address[:64]!r}")
    enable()
    from prometheus_client import start_http_server

    server, _ = start_http_server(parsed[1], parsed[0])
    metrics = MetricsServer(server)
    log.info("metrics: serving /metrics on %s:%d", parsed[0], metrics.port)
    return metrics
