-- q14: calculation. Bids between 1,000,000 and 50,000,000 (euro cents), with the time of day
-- they were made and a user-defined function's count of 'c' in their extra.
-- result: append
CREATE TABLE ${sink} (
  auction BIGINT, bidder BIGINT, price DECIMAL(23, 3), bidTimeType STRING,
  `dateTime` TIMESTAMP(3), extra STRING, c_counts BIGINT)
  WITH (${with});
INSERT INTO ${sink}
SELECT auction, bidder, CAST(0.908 * price AS DECIMAL(23, 3)) AS price,
  CASE
    WHEN HOUR(`dateTime`) >= 8 AND HOUR(`dateTime`) <= 18 THEN 'dayTime'
    WHEN HOUR(`dateTime`) <= 6 OR HOUR(`dateTime`) >= 20 THEN 'nightTime'
    ELSE 'otherTime'
  END AS bidTimeType,
  `dateTime`, extra, count_char(extra, 'c') AS c_counts
FROM bid
WHERE 0.908 * price > 1000000 AND 0.908 * price < 50000000;
