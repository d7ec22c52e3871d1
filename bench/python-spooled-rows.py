# The Trino Python client's DB-API reading a whole table through the direct protocol and through each
# spooling encoding (json, json+zstd, json+lz4), the rows of each pass compared with the direct one's: the
# count, and two order-free checksums of the rows as the client maps them (the sum and the xor of each
# row's hash, in one process so the hashes agree). Each spooling pass must have been answered with
# segments (counted by type), the direct one with data arrays. Issue 23, section 3; run by
# bin/trino-python-rows, which puts the client's source on PYTHONPATH.
#
#   python3 bench/python-spooled-rows.py [--table tpch.sf1.lineitem] [--host 127.0.0.1] [--port 8080]
#
# Prints one line per pass and exits 1 when a pass differs from the direct one.
import argparse
import sys
import time

import trino
import trino.client
import trino.dbapi

MASK = (1 << 64) - 1

# Counts the segments the client decodes, by type: the proof that a pass used the spooling protocol.
segments = {"inline": 0, "spooled": 0}
_to_segments = trino.client.TrinoQuery._to_segments


def _counting(self, rows):
    for segment in rows.get("segments", []):
        segments[segment.get("type", "?")] = segments.get(segment.get("type", "?"), 0) + 1
    return _to_segments(self, rows)


trino.client.TrinoQuery._to_segments = _counting


def read(args, encoding):
    """Every row of the table through `encoding` (None: the direct protocol): count, checksums, seconds."""
    for key in segments:
        segments[key] = 0
    connection = trino.dbapi.connect(host=args.host, port=args.port, user="python-rows", encoding=encoding)
    count = 0
    total = 0
    xor = 0
    start = time.monotonic()
    try:
        cursor = connection.cursor()
        cursor.execute(f"SELECT * FROM {args.table}")
        while True:
            rows = cursor.fetchmany(10_000)
            if not rows:
                break
            for row in rows:
                h = hash(tuple(row)) & MASK
                total = (total + h) & MASK
                xor ^= h
            count += len(rows)
    finally:
        connection.close()
    return {"rows": count, "sum": f"{total:016x}", "xor": f"{xor:016x}", "seconds": round(time.monotonic() - start, 2), "segments": dict(segments)}


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--table", default="tpch.sf1.lineitem")
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=8080)
    parser.add_argument("--encodings", default="json,json+zstd,json+lz4")
    args = parser.parse_args()
    print(f"trino-python-client {trino.__version__}, {args.table} at {args.host}:{args.port}", flush=True)
    direct = read(args, None)
    print(f"direct: {direct}", flush=True)
    failures = []
    if direct["segments"]["inline"] + direct["segments"]["spooled"] != 0:
        failures.append("direct: the server answered segments to a client that did not ask")
    for encoding in args.encodings.split(","):
        result = read(args, encoding)
        same = all(result[k] == direct[k] for k in ("rows", "sum", "xor"))
        print(f"{encoding}: {result} {'equal to direct' if same else 'DIFFERENT from direct'}", flush=True)
        if not same:
            failures.append(f"{encoding}: rows differ from the direct protocol's")
        if result["segments"]["inline"] + result["segments"]["spooled"] == 0 and direct["rows"] > 0:
            failures.append(f"{encoding}: no segments: the server answered data arrays")
    for failure in failures:
        print(f"FAIL {failure}", flush=True)
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
