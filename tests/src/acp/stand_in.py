#!/usr/bin/env python3
"""A stand-in ACP agent: JSON-RPC 2.0 over stdio, one message per line, behaving as
STAND_IN_MODE says. It covers the faults the real agents cannot be made to show.

At `initialize`: `crash` exits before answering, `hang` never answers, `garbage` writes a line
that is no JSON-RPC, `v2` answers another protocol version, `plain` offers no load/fork/list.
Sessions (every other mode): `session/new` answers `s1` (`refuse-new`: an error instead),
`session/fork` `s2`, `session/prompt` streams `stand-in: <prompt>` and ends the turn, except:
`crash-turn` streams one chunk and exits mid-turn, `garbage-turn` writes a broken line among
its chunks, `ask` asks permission for `rm -rf build` first and says which answer it got."""
import json
import os
import sys
import time

mode = os.environ.get("STAND_IN_MODE", "fork")


def send(message):
    message["jsonrpc"] = "2.0"
    sys.stdout.write(json.dumps(message) + "\n")
    sys.stdout.flush()


def chunk(session, text):
    send({"method": "session/update", "params": {"sessionId": session, "update": {
        "sessionUpdate": "agent_message_chunk", "content": {"type": "text", "text": text}}}})


if mode == "crash":
    sys.stderr.write("stand-in: cannot read its config (as asked to)\n")
    sys.exit(3)

lines = iter(sys.stdin)
for line in lines:
    try:
        message = json.loads(line)
    except ValueError:
        continue
    method = message.get("method")
    params = message.get("params") or {}
    if method == "initialize":
        if mode == "hang":
            time.sleep(3600)
        if mode == "garbage":
            sys.stdout.write("this is no JSON-RPC\n")
            sys.stdout.flush()
            time.sleep(3600)
        sessions = {"list": {}, "fork": {}} if mode != "plain" else {}
        send({"id": message["id"], "result": {
            "protocolVersion": 2 if mode == "v2" else 1,
            "agentCapabilities": {
                "loadSession": mode != "plain",
                "promptCapabilities": {"image": mode != "plain"},
                "sessionCapabilities": sessions,
            },
            "authMethods": [{"id": "stand-in-key", "name": "A key"}] if mode != "plain" else [],
            "agentInfo": {"name": "stand-in", "version": "0.0.1"},
        }})
    elif method == "session/new":
        if mode == "refuse-new":
            send({"id": message["id"], "error": {"code": -32603, "message": "no sessions today"}})
        else:
            send({"id": message["id"], "result": {"sessionId": "s1"}})
    elif method == "session/fork":
        send({"id": message["id"], "result": {"sessionId": "s2"}})
    elif method == "session/prompt":
        session = params.get("sessionId", "")
        text = "".join(b.get("text", "") for b in params.get("prompt", []))
        if mode == "crash-turn":
            chunk(session, "half a repl")
            sys.stderr.write("stand-in: lost its model mid-turn (as asked to)\n")
            sys.stderr.flush()
            os._exit(5)
        if mode == "garbage-turn":
            chunk(session, "stand-in: ")
            sys.stdout.write("{broken json\n")
            sys.stdout.flush()
        if mode == "ask":
            send({"id": "perm-1", "method": "session/request_permission", "params": {
                "sessionId": session,
                "toolCall": {"toolCallId": "call-1", "title": "rm -rf build", "kind": "execute",
                             "status": "pending", "rawInput": {"command": "rm -rf build"}},
                "options": [{"optionId": "allow-1", "kind": "allow_once", "name": "Allow"},
                            {"optionId": "no-1", "kind": "reject_once", "name": "Deny"}]}})
            answer = None
            for reply in lines:
                reply = json.loads(reply)
                if reply.get("id") == "perm-1":
                    answer = reply.get("result", {}).get("outcome", {})
                    break
            chunk(session, "answer: " + json.dumps(answer, sort_keys=True))
            send({"id": message["id"], "result": {"stopReason": "end_turn"}})
            continue
        chunk(session, "stand-in: " + text)
        send({"id": message["id"], "result": {"stopReason": "end_turn",
                                              "usage": {"inputTokens": 3, "outputTokens": 2}}})
    elif method == "session/cancel":
        continue
    elif "id" in message:
        send({"id": message["id"], "error": {"code": -32601, "message": "Method not found"}})
