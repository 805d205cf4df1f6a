-- q19: auction top-10 price. The ten highest bids of every auction (earlier time, then bidder,
-- channel, url and extra break ties of equal prices).
-- result: upsert
CREATE TABLE ${sink} (
  auction BIGINT, bidder BIGINT, price BIGINT, channel STRING, url STRING,
  `dateTime` TIMESTAMP(3), extra STRING, rank_number BIGINT,
  PRIMARY KEY (auction, rank_number) NOT ENFORCED)
  WITH ('write.upsert.enabled' = 'true', ${with});
INSERT INTO ${sink}
SELECT auction, bidder, price, channel, url, `dateTime`, extra, rank_number
FROM (
  SELECT auction, bidder, price, channel, url, `dateTime`, extra,
    ROW_NUMBER() OVER (
      PARTITION BY auction
      ORDER BY price DESC, `dateTime` ASC, bidder ASC, channel ASC, url ASC, extra ASC) AS rank_number
  FROM bid
)
WHERE rank_number <= 10;
