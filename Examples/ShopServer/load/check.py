#!/usr/bin/env python3
"""The shop database against what the load runs recorded: proves that no write was lost or made twice.

  check.py snapshot DB OUT
      Writes OUT (JSON): every account's balance, and the highest order and account ids. Take it
      before the load runs; it reads through a read-only connection, so the server may be running.

  check.py check DB SNAPSHOT RECORD_DIR [--allow-unanswered]
      Compares DB with SNAPSHOT and the records shop-load appended to RECORD_DIR (orders.txt,
      accounts.txt, unanswered.txt):
        - PRAGMA integrity_check is ok;
        - the orders made since the snapshot are exactly the recorded ones (none missing, none
          recorded twice, none extra), with the recorded account, product, quantity and total, and
          each total is the product's price times the quantity;
        - the accounts opened since the snapshot are exactly the recorded ones (matched by email);
        - every account's balance is its snapshot balance (or its opening balance) less the totals
          of its new orders, and none is negative;
        - no order names an account or a product that does not exist;
        - if the table daily_totals exists, it equals the orders aggregated by day.
      With --allow-unanswered (after a crash), an order or account not recorded is allowed when it
      matches a distinct write that was sent and never answered (unanswered.txt): an order by
      account, product and quantity, an account by email.
      Prints "data: consistent" or "data: N problems" with the first problems; exits 0 or 1.

Python 3 standard library only.
"""

import collections
import json
import os
import sqlite3
import sys

SHOWN_PROBLEMS = 20


def connect(path):
    """A read-only connection (in WAL mode it reads a consistent state while the server writes)."""
    return sqlite3.connect(f"file:{os.path.abspath(path)}?mode=ro", uri=True)


def snapshot(db_path, out_path):
    db = connect(db_path)
    with db:  # one read transaction: the three reads see the same state
        db.execute("BEGIN")
        balances = {str(i): b for i, b in db.execute("SELECT id, balance_cents FROM accounts")}
        max_order = db.execute("SELECT COALESCE(MAX(id), 0) FROM orders").fetchone()[0]
        max_account = db.execute("SELECT COALESCE(MAX(id), 0) FROM accounts").fetchone()[0]
    db.close()
    with open(out_path, "w") as out:
        json.dump({"balances": balances, "max_order_id": max_order, "max_account_id": max_account}, out)
    print(f"snapshot: {len(balances)} accounts, max order id {max_order}, max account id {max_account}")


def read_records(path, fields):
    """The lines of a record file, each split into `fields` values; a missing file has none."""
    if not os.path.exists(path):
        return [], []
    records, malformed = [], []
    with open(path) as f:
        for number, line in enumerate(f, 1):
            parts = line.split()
            if not parts:
                continue
            if len(parts) != fields:
                malformed.append(f"{os.path.basename(path)}:{number}: {line.strip()!r}")
                continue
            records.append(parts)
    return records, malformed


def check(db_path, snapshot_path, record_dir, allow_unanswered):
    problems = []
    with open(snapshot_path) as f:
        snap = json.load(f)
    balances_before = {int(k): v for k, v in snap["balances"].items()}
    max_order, max_account = snap["max_order_id"], snap["max_account_id"]

    orders_recorded, bad_o = read_records(os.path.join(record_dir, "orders.txt"), 5)
    accounts_recorded, bad_a = read_records(os.path.join(record_dir, "accounts.txt"), 3)
    unanswered = []
    if os.path.exists(os.path.join(record_dir, "unanswered.txt")):
        with open(os.path.join(record_dir, "unanswered.txt")) as f:
            unanswered = [line.split() for line in f if line.strip()]
    problems += [f"malformed record {m}" for m in bad_o + bad_a]
    unanswered_orders = collections.Counter(
        (int(u[1]), int(u[2]), int(u[3])) for u in unanswered if u[0] == "order" and len(u) == 4)
    unanswered_accounts = collections.Counter(u[1] for u in unanswered if u[0] == "account" and len(u) == 2)

    db = connect(db_path)
    db.execute("BEGIN")  # one consistent state for every query below
    integrity = [row[0] for row in db.execute("PRAGMA integrity_check")]
    if integrity != ["ok"]:
        problems += [f"integrity_check: {line}" for line in integrity[:5]]

    prices = dict(db.execute("SELECT id, price_cents FROM products"))
    accounts = {i: (email, balance) for i, email, balance in
                db.execute("SELECT id, email, balance_cents FROM accounts")}
    new_orders = {i: (a, p, q, t) for i, a, p, q, t in db.execute(
        "SELECT id, account_id, product_id, quantity, total_cents FROM orders WHERE id > ?", (max_order,))}

    # Orders: the recorded ones exactly.
    recorded = {}
    for oid, account, product, quantity, total in ((int(x) for x in r) for r in orders_recorded):
        if oid in recorded:
            problems.append(f"order {oid} recorded twice")
            continue
        recorded[oid] = (account, product, quantity, total)
        if oid <= max_order:
            problems.append(f"order {oid} recorded as new, but the snapshot already had ids up to {max_order}")
        elif oid not in new_orders:
            problems.append(f"order {oid} answered 201 but missing from the database")
        elif new_orders[oid] != recorded[oid]:
            problems.append(f"order {oid}: database has {new_orders[oid]}, the answer said {recorded[oid]}")
    for oid in sorted(set(new_orders) - set(recorded)):
        account, product, quantity, _ = new_orders[oid]
        if allow_unanswered and unanswered_orders[(account, product, quantity)] > 0:
            unanswered_orders[(account, product, quantity)] -= 1
        else:
            problems.append(f"order {oid} {new_orders[oid]} in the database but never answered 201")
    for oid, (account, product, quantity, total) in sorted(new_orders.items()):
        if product in prices and total != prices[product] * quantity:
            problems.append(f"order {oid}: total {total}, but {quantity} x {prices[product]}")

    # Accounts: the recorded ones exactly, by email.
    new_accounts = {email: (i, balance) for i, (email, balance) in accounts.items() if i > max_account}
    opening = {}
    seen_emails = set()
    for aid, email, balance in accounts_recorded:
        aid, balance = int(aid), int(balance)
        if email in seen_emails:
            problems.append(f"account {email} recorded twice")
            continue
        seen_emails.add(email)
        opening[aid] = balance
        if email not in new_accounts:
            problems.append(f"account {aid} {email} answered 201 but missing from the database")
        elif new_accounts[email][0] != aid:
            problems.append(f"account {email}: id {new_accounts[email][0]} in the database, {aid} in the answer")
    for email, (aid, _) in sorted(new_accounts.items(), key=lambda e: e[1][0]):
        if email in seen_emails:
            continue
        if allow_unanswered and unanswered_accounts[email] > 0:
            unanswered_accounts[email] -= 1
            opening[aid] = 500000  # what shop-load opens accounts with
        else:
            problems.append(f"account {aid} {email} in the database but never answered 201")
    for aid in sorted(set(balances_before) - set(accounts)):
        problems.append(f"account {aid} of the snapshot is gone")

    # Balances: the snapshot's (or the opening one) less the new orders.
    spent = collections.Counter()
    for account, _, _, total in new_orders.values():
        spent[account] += total
    for aid, (email, balance) in sorted(accounts.items()):
        if balance < 0:
            problems.append(f"account {aid}: negative balance {balance}")
        start = balances_before.get(aid, opening.get(aid))
        if start is None:
            continue  # an extra account, reported above
        if balance != start - spent[aid]:
            problems.append(f"account {aid}: balance {balance}, expected {start} - {spent[aid]} = {start - spent[aid]}")

    # References.
    for oid, what, ref in db.execute(
            """SELECT o.id, 'account', o.account_id FROM orders o LEFT JOIN accounts a ON a.id = o.account_id
               WHERE a.id IS NULL
               UNION ALL
               SELECT o.id, 'product', o.product_id FROM orders o LEFT JOIN products p ON p.id = o.product_id
               WHERE p.id IS NULL"""):
        problems.append(f"order {oid} names {what} {ref}, which does not exist")

    # The daily totals, if the server keeps them.
    daily_rows = None
    if db.execute("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'daily_totals'").fetchone():
        kept = {d: (n, r) for d, n, r in db.execute("SELECT day, orders, revenue_cents FROM daily_totals")}
        actual = {d: (n, r) for d, n, r in db.execute(
            "SELECT created_at / 86400, COUNT(*), SUM(total_cents) FROM orders GROUP BY created_at / 86400")}
        for day in sorted(set(kept) | set(actual)):
            if kept.get(day, (0, 0)) != actual.get(day, (0, 0)):
                problems.append(f"daily_totals day {day}: kept {kept.get(day)}, orders say {actual.get(day)}")
        daily_rows = len(kept)
    db.rollback()
    db.close()

    used = (sum(1 for u in unanswered if u[0] == "order") - sum(unanswered_orders.values()),
            sum(1 for u in unanswered if u[0] == "account") - sum(unanswered_accounts.values()))
    summary = (f"{len(new_orders)} new orders ({len(recorded)} recorded), {len(new_accounts)} new accounts "
               f"({len(seen_emails)} recorded), {len(unanswered)} writes unanswered")
    if allow_unanswered:
        summary += f" (made anyway: {used[0]} orders, {used[1]} accounts)"
    if daily_rows is not None:
        summary += f", daily_totals: {daily_rows} days"
    print(f"  {summary}")
    for problem in problems[:SHOWN_PROBLEMS]:
        print(f"  problem: {problem}")
    if len(problems) > SHOWN_PROBLEMS:
        print(f"  ... and {len(problems) - SHOWN_PROBLEMS} more")
    print("data: consistent" if not problems else f"data: {len(problems)} problems")
    return 1 if problems else 0


def main(argv):
    if len(argv) == 3 and argv[0] == "snapshot":
        snapshot(argv[1], argv[2])
        return 0
    if argv and argv[0] == "check" and len(argv) in (4, 5) and (len(argv) == 4 or argv[4] == "--allow-unanswered"):
        return check(argv[1], argv[2], argv[3], len(argv) == 5)
    print(__doc__.split("\n\n")[1], file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
