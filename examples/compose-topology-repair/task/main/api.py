"""The incident API the proxy fronts: reads and resolves incidents in PostgreSQL (psql)."""

import json
import re
import subprocess
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

PSQL = ["psql", "-h", "127.0.0.1", "-U", "postgres", "-At", "-v", "ON_ERROR_STOP=1", "-c"]


def status_of(incident: int, resolve: bool) -> str | None:
    if resolve:
        subprocess.run(PSQL + [f"UPDATE audit_events SET status = 'resolved' WHERE incident_id = {incident}"],
                       check=True, capture_output=True)
    out = subprocess.run(PSQL + [f"SELECT status FROM audit_events WHERE incident_id = {incident}"],
                         check=True, capture_output=True, text=True).stdout.strip()
    return out or None


class Api(BaseHTTPRequestHandler):
    def answer(self, resolve: bool) -> None:
        match = re.fullmatch(r"/incident/(\d+)" + ("/resolve" if resolve else ""), self.path)
        status = status_of(int(match.group(1)), resolve) if match else None
        body = json.dumps({"incident_id": int(match.group(1)), "status": status} if status else {"error": "not found"})
        self.send_response(200 if status else 404)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body.encode())

    def do_GET(self) -> None:  # noqa: N802
        self.answer(resolve=False)

    def do_POST(self) -> None:  # noqa: N802
        self.answer(resolve=True)


ThreadingHTTPServer(("127.0.0.1", 8000), Api).serve_forever()
