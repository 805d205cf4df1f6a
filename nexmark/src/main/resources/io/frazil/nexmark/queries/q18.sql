-- q18: find last bid. Every bidder's last bid on each auction (later price, channel, url and extra
-- break ties of equal times, so the last bid is one row whatever the arrival order; the planner
-- then runs it as a rank, not a deduplication).
-- result: upsert
CREATE TABLE ${sink} (
  auction BIGINT, bidder BIGINT, price BIGINT, channel STRING, url STRING,
  `dateTime` TIMESTAMP(3), extra STRING,
  PRIMARY KEY (bidder, auction) NOT ENFORCED)
  WITH ('write.upsert.enabled' = 'true', ${with});
INSERT INTO ${sink}
SELECT auction, bidder, price, channel, url, `dateTime`, extra
FROM (
  SELECT auction, bidder, price, channel, url, `dateTime`, extra,
    ROW_NUMBER() OVER (
      PARTITION BY bidder, auction
      ORDER BY `dateTime` DESC, price DESC, channel DESC, url DESC, extra DESC) AS rank_number
  FROM bid
)
WHERE rank_number <= 1;
