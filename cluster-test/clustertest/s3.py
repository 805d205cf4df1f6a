"""S3 for the s3 scenarios: moto's server on 127.0.0.1 (from a venv made on first use), the JDBC
catalog on SQLite whose FileIO is S3FileIO against it, and a table's metadata read from it."""

from __future__ import annotations

import json
import re
import sqlite3
import subprocess
import sys
import time
import urllib.request

from .checks import commits_in
from .common import BUILD, free_port, log, require
from .flink import Cluster, FlinkHome
from .processes import PROCESSES


MOTO = "moto[server]==5.2.5"


S3_BUCKET = "warehouse"


def start_moto(home: FlinkHome) -> int:
    """moto's S3 server on 127.0.0.1 from a venv under cluster-test/target (made on first use);
    returns its port once it answers, with the bucket created."""
    venv = BUILD / "venv"
    server = venv / "bin" / "moto_server"
    if not server.exists():
        log(f"installing {MOTO} into {venv}")
        subprocess.run([sys.executable, "-m", "venv", "--clear", str(venv)], check=True,
                       timeout=300)
        subprocess.run([str(venv / "bin" / "pip"), "install", "--quiet", MOTO], check=True,
                       timeout=900)
    port = free_port()
    out = open(home.log / "moto.out", "w")
    proc = subprocess.Popen([str(server), "-H", "127.0.0.1", "-p", str(port)], stdout=out,
                            stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL)
    out.close()
    PROCESSES.append(proc)
    deadline = time.monotonic() + 60
    while True:
        require(proc.poll() is None, f"moto_server exited {proc.returncode}: see moto.out")
        try:
            request = urllib.request.Request(f"http://127.0.0.1:{port}/{S3_BUCKET}", method="PUT")
            with urllib.request.urlopen(request, timeout=5):
                break
        except OSError:
            require(time.monotonic() < deadline, "moto_server did not answer within 60 s")
            time.sleep(0.5)
    log(f"moto S3 server (pid {proc.pid}) on 127.0.0.1:{port}, bucket {S3_BUCKET}")
    return port


def s3_object_sizes(port: int, prefix: str) -> dict[str, int]:
    """Keys and sizes under a prefix, by S3 ListObjectsV2 (moto accepts unsigned requests)."""
    url = f"http://127.0.0.1:{port}/{S3_BUCKET}?list-type=2&prefix={prefix}&max-keys=1000"
    with urllib.request.urlopen(url, timeout=10) as response:
        text = response.read().decode()
    keys = re.findall(r"<Key>([^<]+)</Key>", text)
    sizes = [int(v) for v in re.findall(r"<Size>(\d+)</Size>", text)]
    return dict(zip(keys, sizes))


def s3_catalog(cluster: Cluster, port: int) -> list[str]:
    """Job/TableCheck arguments: a JDBC catalog on SQLite whose FileIO is S3FileIO against
    127.0.0.1:port."""
    props = {
        "uri": "jdbc:sqlite:" + str(cluster.home.work / "catalog.db"),
        "jdbc.schema-version": "V1",
        "io-impl": "org.apache.iceberg.aws.s3.S3FileIO",
        "s3.endpoint": f"http://127.0.0.1:{port}",
        "s3.path-style-access": "true",
        "s3.access-key-id": "test",
        "s3.secret-access-key": "test",
        "client.region": "us-east-1",
        # 5 MB parts (S3's minimum) from the first part on, so data files use multipart.
        "s3.multipart.part-size-bytes": str(5 * 1024 * 1024),
        "s3.multipart.threshold": "1.0",
    }
    return ["--warehouse", f"s3://{S3_BUCKET}/wh", "--catalog-impl",
            "org.apache.iceberg.jdbc.JdbcCatalog",
            "--catalog-props", ",".join(f"{k}={v}" for k, v in props.items())]


def s3_iceberg_commits(cluster: Cluster, port: int, table: str) -> tuple[int, int]:
    """(snapshots, last committed checkpoint id) of a table in the JDBC catalog on SQLite, its
    metadata file read from moto directly (not through the fault proxy)."""
    metadata = s3_table_metadata(cluster, port, table)
    return commits_in(metadata) if metadata else (0, -1)


def s3_table_metadata(cluster: Cluster, port: int, table: str) -> dict:
    """The current metadata JSON of a table in the JDBC catalog on SQLite, read from moto at
    `port` ({} before the table exists or when it cannot be read)."""
    namespace, name = table.split(".")
    try:
        with sqlite3.connect(f"file:{cluster.home.work / 'catalog.db'}?mode=ro", uri=True,
                             timeout=5) as db:
            row = db.execute("SELECT metadata_location FROM iceberg_tables WHERE "
                             "table_namespace = ? AND table_name = ?", (namespace, name)).fetchone()
        if not row:
            return {}
        key = row[0].removeprefix(f"s3://{S3_BUCKET}/")
        # moto answers an object GET only with some (unchecked) AWS authorization header.
        request = urllib.request.Request(
            f"http://127.0.0.1:{port}/{S3_BUCKET}/{key}",
            headers={"Authorization": "AWS4-HMAC-SHA256 Credential=test/20260101/us-east-1/s3/"
                                      "aws4_request, SignedHeaders=host, Signature=0"})
        with urllib.request.urlopen(request, timeout=10) as response:
            return json.load(response)
    except (sqlite3.Error, OSError, ValueError):
        return {}
