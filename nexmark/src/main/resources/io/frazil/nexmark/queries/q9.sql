-- q9: winning bids. Every auction with its winning bid: the highest bid made before it expired,
-- the earliest of equal bids (then bidder and extra, so that the winner is one row whatever the
-- order bids arrive in).
-- result: upsert
CREATE TABLE ${sink} (
  id BIGINT, itemName STRING, description STRING, initialBid BIGINT, reserve BIGINT,
  `dateTime` TIMESTAMP(3), expires TIMESTAMP(3), seller BIGINT, category BIGINT, extra STRING,
  auction BIGINT, bidder BIGINT, price BIGINT, bid_dateTime TIMESTAMP(3), bid_extra STRING,
  PRIMARY KEY (id) NOT ENFORCED)
  WITH ('write.upsert.enabled' = 'true', ${with});
INSERT INTO ${sink}
SELECT id, itemName, description, initialBid, reserve, `dateTime`, expires, seller, category, extra,
  auction, bidder, price, bid_dateTime, bid_extra
FROM (
  SELECT A.id, A.itemName, A.description, A.initialBid, A.reserve, A.`dateTime`, A.expires,
    A.seller, A.category, A.extra, B.auction, B.bidder, B.price, B.`dateTime` AS bid_dateTime,
    B.extra AS bid_extra,
    ROW_NUMBER() OVER (
      PARTITION BY A.id ORDER BY B.price DESC, B.`dateTime` ASC, B.bidder ASC, B.extra ASC) AS rownum
  FROM auction A, bid B
  WHERE A.id = B.auction AND B.`dateTime` BETWEEN A.`dateTime` AND A.expires
)
WHERE rownum <= 1;
