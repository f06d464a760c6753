"""Prometheus metrics of a running bot, served on `--metrics HOST:PORT` at /metrics (prometheus-client).

The metrics are module-level objects in the client's default registry, so counting costs a dict
lookup and an addition wherever it happens, whether or not anything scrapes them; only the HTTP
server is optional. What each one is for, and the alerts worth having: docs/operations.md.
"""

from __future__ import annotations

import functools
import logging
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import ParamSpec, TypeVar
from wsgiref.simple_server import WSGIServer

from prometheus_client import Counter, Gauge, Histogram, start_http_server

from bot.port import ChatGone, ChatMoved, DeliveryError, DeliveryUnknown

log = logging.getLogger(__name__)
P = ParamSpec("P")
T = TypeVar("T")

ANSWERS = Counter("interview_bot_answers", "Answers recorded, by platform and kind (interview or daily)",
                  ["platform", "kind"])
INTERVIEWS_STARTED = Counter("interview_bot_interviews_started", "Interviews and reviews started", ["platform"])
SENDS = Counter("interview_bot_sends", "Requests that send or edit a message, by platform and outcome "
                "(ok, gone, moved, unknown, error)", ["platform", "outcome"])
SEND_SECONDS = Histogram("interview_bot_send_seconds", "Time to send or edit one message, waiting for the pace "
                         "and retries included", ["platform"],
                         buckets=(0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0, 60.0, 120.0))
RATE_LIMITED = Counter("interview_bot_rate_limited", "Answers of 429 Too Many Requests from a platform", ["platform"])
SCHEDULER_LAG = Gauge("interview_bot_scheduler_lag_seconds", "How late the latest tick of a timer ran after the "
                      "moment it was due", ["timer"])
UPDATES_IN_FLIGHT = Gauge("interview_bot_updates_in_flight", "Platform updates (commands, clicks) being handled now",
                          ["platform"])


def outcome_of(error: BaseException | None) -> str:
    """A send's outcome as the label the core's delivery errors map to."""
    if error is None:
        return "ok"
    for kind, label in ((ChatGone, "gone"), (ChatMoved, "moved"), (DeliveryUnknown, "unknown")):
        if isinstance(error, kind):
            return label
    return "error"


def metered_send(platform: str) -> Callable[[Callable[P, Awaitable[T]]], Callable[P, Awaitable[T]]]:
    """Count and time every call of a port's send/edit path, by its outcome."""
    def decorate(function: Callable[P, Awaitable[T]]) -> Callable[P, Awaitable[T]]:
        @functools.wraps(function)
        async def metered(*args: P.args, **kwargs: P.kwargs) -> T:
            started = time.perf_counter()
            try:
                result = await function(*args, **kwargs)
            except DeliveryError as error:
                SENDS.labels(platform, outcome_of(error)).inc()
                raise
            except Exception:
                SENDS.labels(platform, "error").inc()
                raise
            finally:
                SEND_SECONDS.labels(platform).observe(time.perf_counter() - started)
            SENDS.labels(platform, "ok").inc()
            return result
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

    server: WSGIServer

    @property
    def port(self) -> int:
        return int(self.server.server_address[1])

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


def serve_metrics(address: str) -> MetricsServer:
    """Serve /metrics on HOST:PORT (port 0: any free one); OSError if it cannot listen there."""
    parsed = parse_address(address)
    if parsed is None:
        raise ValueError(f"--metrics must be HOST:PORT, not {address[:64]!r}")
    server, _ = start_http_server(parsed[1], parsed[0])
    metrics = MetricsServer(server)
    log.info("metrics: serving /metrics on %s:%d", parsed[0], metrics.port)
    return metrics
