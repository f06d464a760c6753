"""The webhook receiver: Telegram's POST is answered only after its update has been handled.

Telegram re-sends an update while its webhook answers anything but 2xx (or nothing at all), and forgets
it once it gets a 2xx. PTB's built-in webhook server answers as soon as the update is in its in-memory
queue, so a worker killed with updates queued loses them: Telegram had its 200. Here the update runs
through the Application (the core records the click, the clicker's pop-up is answered) before the 200
goes back; a worker that dies mid-update never answers, Telegram sends the update again (through the
load balancer, to a live worker), and the store makes the repeat harmless (the same click gets the same
verdict, recorded once). Replies a handler queued for its chat are sent after the 200, as before.

A request without the secret token Telegram was given is refused with 403 and touches nothing; a body
that is not an update gets 400 (Telegram would only send it again); a handler's failure has gone to the
Application's error handler and is answered 200, since sending the same update again would fail again.
"""

from __future__ import annotations

import hmac
import json
import logging
from collections.abc import Sequence

from aiohttp import web
from telegram import Update
from telegram.error import TelegramError
from telegram.ext import Application

log = logging.getLogger(__name__)
SECRET_HEADER = "X-Telegram-Bot-Api-Secret-Token"
MAX_BODY = 1 << 20  # an update is a few KB; Telegram's own limit for a message is far below this


class WebhookReceiver:
    """An aiohttp server on `host:port` that handles each POST to `path` before answering it."""

    def __init__(self, application: Application, path: str, secret: str) -> None:
        self.application, self.path, self.secret = application, "/" + path.lstrip("/"), secret
        self._runner: web.AppRunner | None = None
        self.handled = 0

    async def _receive(self, request: web.Request) -> web.Response:
        if not hmac.compare_digest(request.headers.get(SECRET_HEADER, "").encode("utf-8", "replace"),
                                   self.secret.encode()):
            log.warning("webhook: a request without the secret token was refused")
            return web.Response(status=403)
        if request.content_length is not None and request.content_length > MAX_BODY:
            return web.Response(status=413)
        try:
            data = json.loads(await request.read())
            update = Update.de_json(data, self.application.bot)
        except (ValueError, TypeError, KeyError, TelegramError) as error:
            log.warning("webhook: a body that is not an update was refused (%s)", type(error).__name__)
            return web.Response(status=400)
        if update is None:
            return web.Response(status=400)
        processor = self.application.update_processor  # the same bound on concurrent updates as polling
        await processor.process_update(update, self.application.process_update(update))
        self.handled += 1
        return web.Response()  # only now may Telegram forget the update

    async def start(self, host: str, port: int) -> None:
        app = web.Application(client_max_size=MAX_BODY)
        app.router.add_post(self.path, self._receive)
        self._runner = web.AppRunner(app, access_log=None)
        await self._runner.setup()
        await web.TCPSite(self._runner, host, port).start()
        log.info("telegram: webhook receiver on %s:%d%s", host, port, self.path)

    async def stop(self) -> None:
        """Stop taking POSTs; the ones being handled finish first (aiohttp's graceful shutdown)."""
        if self._runner is not None:
            await self._runner.cleanup()
            self._runner = None


async def set_webhook(application: Application, url: str, secret: str, allowed_updates: Sequence[str],
                      retries: int) -> None:
    """Tell Telegram where to send updates, retrying a passing network error at start-up."""
    for attempt in range(retries + 1):
        try:
            await application.bot.set_webhook(url=url, secret_token=secret, allowed_updates=list(allowed_updates))
            return
        except TelegramError as error:
            if attempt == retries:
                raise
            log.warning("setWebhook failed (%s); retrying", error)
