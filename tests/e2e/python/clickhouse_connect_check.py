"""clickhouse-connect (PyPI) against the service's ClickHouse HTTP interface: run by
tests/e2e/clickhouse-http-python.int.test.ts with the port and both passwords."""
import sys

import clickhouse_connect
from clickhouse_connect.driver.exceptions import DatabaseError

port, svc_password, analyst_password = int(sys.argv[1]), sys.argv[2], sys.argv[3]


def client(user, password, compress=False):
    return clickhouse_connect.get_client(host="127.0.0.1", port=port, username=user, password=password, compress=compress)


svc = client("svc", svc_password)
assert svc.command("SELECT 1") == 1
svc.command("CREATE TABLE py_calls (id UInt64, model LowCardinality(String), tokens UInt32, note Nullable(String)) ENGINE = MergeTree ORDER BY id")
# insert sends Native (binary) rows.
summary = svc.insert("py_calls", [[1, "gpt-4o", 120, None], [2, "claude", 300, "it's\ttabbed"], [3, "gpt-4o", 80, "x"]], column_names=["id", "model", "tokens", "note"])
assert summary.written_rows == 3, summary.written_rows

analyst = client("analyst", analyst_password)
result = analyst.query("SELECT model, sum(tokens) AS total FROM py_calls WHERE tokens > {min:UInt32} GROUP BY model ORDER BY model", parameters={"min": 100})
assert result.result_rows == [("claude", 300), ("gpt-4o", 120)], result.result_rows
assert analyst.query("SELECT note FROM py_calls WHERE id = {id:UInt64}", parameters={"id": 2}).result_rows == [("it's\ttabbed",)]
assert analyst.command("SELECT getSetting('readonly')") == 1

for statement in ("DROP TABLE py_calls", "INSERT INTO py_calls (id) VALUES (9)"):
    try:
        analyst.command(statement)
    except DatabaseError as err:
        assert "Code: 164" in str(err) and "READONLY" in str(err), str(err)
    else:
        raise AssertionError(f"{statement} was not refused")
try:
    analyst.insert("py_calls", [[9, "m", 1, None]], column_names=["id", "model", "tokens", "note"])
except DatabaseError as err:
    assert "Code: 164" in str(err), str(err)
else:
    raise AssertionError("the analyst's insert was not refused")

try:
    client("analyst", "wrong")
except DatabaseError as err:
    assert "Code: 516" in str(err) and "AUTHENTICATION_FAILED" in str(err), str(err)
else:
    raise AssertionError("a wrong password was accepted")

gz = client("svc", svc_password, compress="gzip")
gz.insert("py_calls", [[10 + i, "bulk", i, None] for i in range(5000)], column_names=["id", "model", "tokens", "note"])
assert gz.query("SELECT count(), sum(tokens) FROM py_calls WHERE model = 'bulk'").result_rows == [(5000, sum(range(5000)))]
print("clickhouse-connect ok")
