"""Every scenario by name, and the groups `make cluster-test` runs."""

from __future__ import annotations

from .arrow import scenario_arrow, scenario_arrow_hash, scenario_arrow_unaligned
from .fallbacks import scenario_bad_native, scenario_no_add_opens, scenario_no_add_opens_stock
from .kills import scenario_failover, scenario_kill_in_checkpoint, scenario_smoke
from .read import scenario_read, scenario_read_s3
from .s3 import scenario_s3, scenario_s3_outage
from .sinks import scenario_sinks

SCENARIOS = {
    "smoke": scenario_smoke,
    "sinks": scenario_sinks,
    "failover": scenario_failover,
    "kill-in-checkpoint": scenario_kill_in_checkpoint,
    "no-add-opens": scenario_no_add_opens,
    "bad-native": scenario_bad_native,
    "no-add-opens-stock": scenario_no_add_opens_stock,
    "s3": scenario_s3,
    "s3-outage": scenario_s3_outage,
    "read": scenario_read,
    "read-s3": scenario_read_s3,
    "arrow": scenario_arrow,
    "arrow-unaligned": scenario_arrow_unaligned,
    "arrow-hash": scenario_arrow_hash,
}
GROUPS = {"all": ["sinks", "failover", "kill-in-checkpoint", "no-add-opens", "bad-native", "s3",
                  "s3-outage", "read", "read-s3", "arrow", "arrow-unaligned", "arrow-hash"],
          # What `make cluster-test FLINK=1.20` runs: the sinks, the kills, the read path and the
          # Arrow path (aligned: FLINK-37870 keeps 1.20 from unaligned checkpoints here).
          "core": ["smoke", "sinks", "failover", "kill-in-checkpoint", "read", "arrow",
                   "arrow-hash"]}
