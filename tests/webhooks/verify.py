"""Verifies recorded webhook deliveries with the reference Standard Webhooks library.

Reads a JSON file (path in argv[1]): {"secret": "whsec_...", "messages": [{"headers":
{...}, "body": "..."}]}. Exits 0 when every message verifies, 1 when one does not, and 3
when the `standardwebhooks` package is missing.
"""

import json
import sys

try:
    from standardwebhooks.webhooks import Webhook, WebhookVerificationError
except ImportError:
    print("standardwebhooks is not installed", file=sys.stderr)
    sys.exit(3)


def main() -> int:
    with open(sys.argv[1], encoding="utf-8") as f:
        recorded = json.load(f)
    wh = Webhook(recorded["secret"])
    verified = 0
    for message in recorded["messages"]:
        try:
            payload = wh.verify(message["body"], message["headers"])
        except WebhookVerificationError as e:
            print(f"not verified: {message['headers'].get('webhook-id')}: {e}", file=sys.stderr)
            return 1
        if payload.get("id") != message["headers"]["webhook-id"]:
            print("the payload id is not the webhook-id", file=sys.stderr)
            return 1
        verified += 1
    # A tampered body must not verify.
    if recorded["messages"]:
        first = recorded["messages"][0]
        try:
            wh.verify(first["body"] + " ", first["headers"])
            print("a tampered body verified", file=sys.stderr)
            return 1
        except WebhookVerificationError:
            pass
    print(f"verified {verified} messages")
    return 0


if __name__ == "__main__":
    sys.exit(main())
