"""A request body the portal answered without reading is read to its end, and dropped, before the
answer goes out.

Why: gunicorn reads at most 64 KiB of a body the application left, then closes the connection
it has already announced as kept alive. nginx keeps its connections to gunicorn alive and sent
the next request – anyone's – on that closing connection, which that client got as a 502. A
refusal that needs no body (a 429, a 401, a CSRF or a 404) made it: 6 of 40 such refusals of a
1 MB body on a ``bin/serve`` portal. Behind nginx the body is already whole in nginx's buffer,
so reading it costs a copy over loopback.

Only a body within what the route reads is read: one declared beyond it is refused for its size
(413), and its client may be waiting for that answer before sending it (``Expect``, or a client
that sends headers first); reading it would wait for bytes that never come.
"""
from __future__ import annotations

from flask import Flask, Response, current_app, request
from werkzeug.exceptions import ClientDisconnected, RequestEntityTooLarge

from .context import settings


def read_what_was_left(response: Response) -> Response:
    length = request.content_length
    if not length:
        return response
    limit = min(request.max_content_length or length, max(current_app.config["MAX_CONTENT_LENGTH"],
                                                          settings().max_file_bytes))
    if length > limit:
        return response
    try:
        exhaust = getattr(request.stream, "exhaust", None)  # a body already read is held in memory (BytesIO)
        if exhaust is not None:
            exhaust()
    except (ClientDisconnected, RequestEntityTooLarge, OSError):
        pass  # the client went away, or sent other than it declared: gunicorn closes the connection
    return response


def init_app(app: Flask) -> None:
    app.after_request(read_what_was_left)
