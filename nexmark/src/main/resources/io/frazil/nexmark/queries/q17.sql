-- q17: auction statistics per day. Bids per auction and day, per price range, with the minimum,
-- maximum, average and total price.
-- result: upsert
CREATE TABLE ${sink} (
  auction BIGINT, `day` STRING,
  total_bids BIGINT, rank1_bids BIGINT, rank2_bids BIGINT, rank3_bids BIGINT,
  min_price BIGINT, max_price BIGINT, avg_price BIGINT, sum_price BIGINT,
  PRIMARY KEY (auction, `day`) NOT ENFORCED)
  WITH ('write.upsert.enabled' = 'true', ${with});
INSERT INTO ${sink}
SELECT auction, DATE_FORMAT(`dateTime`, 'yyyy-MM-dd') AS `day`,
  COUNT(*) AS total_bids,
  COUNT(*) FILTER (WHERE price < 10000) AS rank1_bids,
  COUNT(*) FILTER (WHERE price >= 10000 AND price < 1000000) AS rank2_bids,
  COUNT(*) FILTER (WHERE price >= 1000000) AS rank3_bids,
  MIN(price) AS min_price, MAX(price) AS max_price, AVG(price) AS avg_price,
  SUM(price) AS sum_price
FROM bid
GROUP BY auction, DATE_FORMAT(`dateTime`, 'yyyy-MM-dd');
