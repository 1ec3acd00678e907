#!/usr/bin/env python3
"""A stand-in ACP agent: JSON-RPC 2.0 over stdio, one message per line, answering
`initialize` as STAND_IN_MODE says. It covers the faults the real agents cannot be made to
show: a crash at start, a hang, a line that is no JSON-RPC, another protocol version."""
import json
import os
import sys
import time

mode = os.environ.get("STAND_IN_MODE", "fork")

if mode == "crash":
    sys.stderr.write("stand-in: cannot read its config (as asked to)\n")
    sys.exit(3)

for line in sys.stdin:
    try:
        message = json.loads(line)
    except ValueError:
        continue
    if message.get("method") != "initialize":
        continue
    if mode == "hang":
        time.sleep(3600)
    if mode == "garbage":
        sys.stdout.write("this is no JSON-RPC\n")
        sys.stdout.flush()
        time.sleep(3600)
    sessions = {"list": {}, "fork": {}} if mode == "fork" else {}
    result = {
        "protocolVersion": 2 if mode == "v2" else 1,
        "agentCapabilities": {
            "loadSession": mode == "fork",
            "promptCapabilities": {"image": mode == "fork"},
            "sessionCapabilities": sessions,
        },
        "authMethods": [{"id": "stand-in-key", "name": "A key"}] if mode == "fork" else [],
        "agentInfo": {"name": "stand-in", "version": "0.0.1"},
    }
    answer = {"jsonrpc": "2.0", "id": message["id"], "result": result}
    sys.stdout.write(json.dumps(answer) + "\n")
    sys.stdout.flush()
