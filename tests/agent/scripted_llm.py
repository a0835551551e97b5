"""A scripted OpenAI-compatible chat-completions server on loopback — the test double for a hosted
LLM, which tests cannot reach. The real `openai` client talks to it over HTTP.

Its options imitate a local server's quirks (llama.cpp, vLLM, Ollama's OpenAI endpoint): no `usage`
in the response, a `finish_reason` other than "stop" ("eos", or null), streaming off (a request
asking for a stream is refused with 400)."""

from __future__ import annotations

import json
import threading
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


class RawReply:
    """An answer sent exactly as given (status, body bytes, headers): malformed and hostile responses,
    429 with Retry-After, 401/404 with an OpenAI-style error body."""

    def __init__(
        self,
        body: bytes,
        status: int = 200,
        content_type: str = "application/json",
        headers: dict[str, str] | None = None,
    ) -> None:
        self.body, self.status, self.content_type = body, status, content_type
        self.headers = headers or {}


def too_many_requests() -> RawReply:
    """A 429 with a short Retry-After: the `openai` client waits and asks again."""
    body = b'{"error": {"message": "rate limited", "type": "rate_limit_error"}}'
    return RawReply(body, 429, headers={"retry-after-ms": "50", "retry-after": "0"})


class Answer:
    """A chat completion with its quirks: the finish_reason a server gives (None, "length", "eos"),
    and whether it reports usage at all."""

    def __init__(self, text: str, finish_reason: str | None = "stop", usage: bool = True) -> None:
        self.text, self.finish_reason, self.usage = text, finish_reason, usage


def error_reply(status: int, message: str, headers: dict[str, str] | None = None) -> RawReply:
    body = json.dumps({"error": {"message": message, "type": "error", "code": status}}).encode()
    return RawReply(body, status, headers=headers)


Reply = Callable[[list[dict[str, str]]], "str | RawReply | Answer"]


class ScriptedLLMServer:
    def __init__(
        self,
        reply: Reply,
        models: list[str] | None = None,
        usage: bool = True,
        finish_reason: str | None = "stop",
        streaming: bool = True,
    ) -> None:
        self.reply = reply
        self.models = models  # GET /models answers with these; None: 404
        self.requests: list[dict] = []
        self.auth_headers: list[str] = []
        server = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:
                if not self.path.rstrip("/").endswith("/models") or server.models is None:
                    self._send(404, b'{"error": {"message": "not found"}}')
                    return
                data = [{"id": m, "object": "model", "created": 0, "owned_by": "test"} for m in server.models]
                self._send(200, json.dumps({"object": "list", "data": data}).encode())

            def _send(self, status: int, body: bytes, headers: dict[str, str] | None = None) -> None:
                self.send_response(status)
                for name, value in (headers or {}).items():
                    self.send_header(name, value)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def do_POST(self) -> None:
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                server.requests.append(body)
                server.auth_headers.append(self.headers.get("Authorization", ""))
                if body.get("stream") and not streaming:
                    text: str | RawReply = RawReply(
                        b'{"error": {"message": "streaming is not supported"}}', 400
                    )
                else:
                    text = server.reply(body["messages"])
                if isinstance(text, RawReply):
                    self.send_response(text.status)
                    for name, value in text.headers.items():
                        self.send_header(name, value)
                    self.send_header("Content-Type", text.content_type)
                    self.send_header("Content-Length", str(len(text.body)))
                    self.end_headers()
                    self.wfile.write(text.body)
                    return
                answer = text if isinstance(text, Answer) else Answer(text, finish_reason, usage)
                completion: dict = {
                    "id": f"chatcmpl-{len(server.requests)}",
                    "object": "chat.completion",
                    "created": 0,
                    "model": body["model"],
                    "choices": [
                        {
                            "index": 0,
                            "finish_reason": answer.finish_reason,
                            "message": {"role": "assistant", "content": answer.text},
                        }
                    ],
                }
                if answer.usage:
                    completion["usage"] = {"prompt_tokens": 100, "completion_tokens": 50, "total_tokens": 150}
                payload = json.dumps(completion).encode()
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(payload)))
                self.end_headers()
                self.wfile.write(payload)

            def log_message(self, *args: object) -> None:
                pass

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.httpd.server_address[1]}/v1"

    def __enter__(self) -> ScriptedLLMServer:
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()
