#!/usr/bin/python3
"""ProtoJSON reference oracle: Google's own runtime (Debian python3-protobuf, json_format).

Usage: /usr/bin/python3 test/oracle/oracle.py DESCRIPTOR_SET CASES_JSON EXPECTED_JSON

For every case {id, type, input} in CASES_JSON, parses `input` as ProtoJSON into lf.a2a.v1.<type>
(ignoring unknown fields, as A2A 1.0 section 5.7 asks) and serialises it again with MessageToDict
(plain ProtoJSON: camelCase names, no defaults). Writes {ok: <json>} or {error: true, reason} per case.
Run it through `make oracle-corpus`; tests only read the file it writes.
"""
import json
import sys

import google.protobuf
from google.protobuf import descriptor_pb2, descriptor_pool, json_format, message_factory

PACKAGE = "lf.a2a.v1."


def main(descriptor_path, cases_path, expected_path):
    with open(descriptor_path, "rb") as f:
        fds = descriptor_pb2.FileDescriptorSet.FromString(f.read())
    pool = descriptor_pool.DescriptorPool()
    for file in fds.file:
        pool.Add(file)
    factory = message_factory.MessageFactory(pool)
    with open(cases_path, encoding="utf-8") as f:
        cases = json.load(f)

    results = {}
    for case in cases:
        cls = factory.GetPrototype(pool.FindMessageTypeByName(PACKAGE + case["type"]))
        if case["id"] in results:
            raise SystemExit("duplicate case id: " + case["id"])
        try:
            msg = json_format.Parse(json.dumps(case["input"]), cls(), ignore_unknown_fields=True)
            results[case["id"]] = {"ok": json_format.MessageToDict(msg)}
        except Exception as e:  # every rejection is an expected error, whatever its class
            results[case["id"]] = {"error": True, "reason": type(e).__name__ + ": " + str(e).split("\n")[0]}

    out = {
        "oracle": "python3-protobuf %s json_format (Parse ignore_unknown_fields=True, MessageToDict)"
        % google.protobuf.__version__,
        "cases": results,
    }
    with open(expected_path, "w", encoding="utf-8") as f:
        # sort_keys: map and Struct entries come out in hash order, which varies between runs
        json.dump(out, f, indent=2, ensure_ascii=False, allow_nan=False, sort_keys=True)
        f.write("\n")
    ok = sum(1 for r in results.values() if "ok" in r)
    print("%d cases: %d accepted, %d rejected -> %s" % (len(results), ok, len(results) - ok, expected_path))


if __name__ == "__main__":
    if len(sys.argv) != 4:
        raise SystemExit(__doc__)
    main(*sys.argv[1:])
