-- q20: expand bid with auction. Every bid on an auction of category 10, with the auction's fields.
-- result: append
CREATE TABLE ${sink} (
  auction BIGINT, bidder BIGINT, price BIGINT, channel STRING, url STRING,
  bid_dateTime TIMESTAMP(3), bid_extra STRING,
  itemName STRING, description STRING, initialBid BIGINT, reserve BIGINT,
  auction_dateTime TIMESTAMP(3), expires TIMESTAMP(3), seller BIGINT, category BIGINT,
  auction_extra STRING)
  WITH (${with});
INSERT INTO ${sink}
SELECT B.auction, B.bidder, B.price, B.channel, B.url, B.`dateTime`, B.extra,
  A.itemName, A.description, A.initialBid, A.reserve, A.`dateTime`, A.expires, A.seller,
  A.category, A.extra
FROM bid AS B INNER JOIN auction AS A ON B.auction = A.id
WHERE A.category = 10;
