"""A scripted OpenAI-compatible chat-completions server on loopback — the test double for a hosted
LLM, which tests cannot reach. The real `openai` client talks to it over HTTP."""

from __future__ import annotations

import json
import threading
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


class RawReply:
    """An answer sent exactly as given (status, body bytes): malformed and hostile responses."""

    def __init__(self, body: bytes, status: int = 200, content_type: str = "application/json") -> None:
        self.body, self.status, self.content_type = body, status, content_type


Reply = Callable[[list[dict[str, str]]], "str | RawReply"]


class ScriptedLLMServer:
    def __init__(self, reply: Reply) -> None:
        self.reply = reply
        self.requests: list[dict] = []
        self.auth_headers: list[str] = []
        server = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                server.requests.append(body)
                server.auth_headers.append(self.headers.get("Authorization", ""))
                text = server.reply(body["messages"])
                if isinstance(text, RawReply):
                    self.send_response(text.status)
                    self.send_header("Content-Type", text.content_type)
                    self.send_header("Content-Length", str(len(text.body)))
                    self.end_headers()
                    self.wfile.write(text.body)
                    return
                payload = json.dumps(
                    {
                        "id": f"chatcmpl-{len(server.requests)}",
                        "object": "chat.completion",
                        "created": 0,
                        "model": body["model"],
                        "choices": [
                            {
                                "index": 0,
                                "finish_reason": "stop",
                                "message": {"role": "assistant", "content": text},
                            }
                        ],
                        "usage": {"prompt_tokens": 100, "completion_tokens": 50, "total_tokens": 150},
                    }
                ).encode()
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
